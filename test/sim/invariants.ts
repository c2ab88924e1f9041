// What must hold after every run (issue 16 "Invariants"), checked against the simulated Redis's
// log of executed commands: every caller settled, in time; every acknowledged write executed, and
// once; a write executed without acknowledgement only behind an ambiguous error (`written: true`)
// or its caller's abort; every reply the one its command asked for; errors that tell the truth
// (`written: false` sent nothing, no reply deadline means no reply timeout, "client is closed" only
// after close()); circuits that move only along the breaker's edges and wait out openDuration.
import {
  RespireCircuitOpenError,
  RespireConnectionError,
  RespireProtocolError,
  RespireTimeoutError,
} from '../../src/errors.js';
import type { ExecutedCommand } from './redis.js';
import { CHANNEL, type Op } from './workload.js';

export interface Transition {
  readonly from: string;
  readonly to: string;
  readonly time: number;
  /** Which circuit (a node's, in Cluster and Sentinel worlds); one sequence per circuit. */
  readonly circuit?: string;
}

export interface RunFacts {
  readonly ops: readonly Op[];
  readonly log: readonly ExecutedCommand[];
  /** Cluster: each command refused with a redirect (MOVED, ASK, TRYAGAIN), and when. */
  readonly redirected: readonly Redirected[];
  readonly acquireTimeout: number;
  readonly retryAttempts: number;
  readonly jumps: readonly { at: number; ms: number }[];
  /** When close() or destroy() was called. */
  readonly closedAt: number;
  readonly transitions: readonly Transition[];
  /** openDuration of the circuit, when there is one. */
  readonly openDuration: number | undefined;
  /** What the pub/sub listener heard, in order. */
  readonly heard: readonly { message: string; channel: string }[];
}

/** Timer delays are whole milliseconds, rounded up (deadline-timer.ts). */
const TIMER_SLACK_MS = 2;
/** The longest TRYAGAIN backoff (README "Redirects"). */
const REDIRECT_BACKOFF_MAX_MS = 160;
/** A written value or counter key; a Cluster transaction's counter key carries a hash tag. */
const WRITE_TOKEN = /^([vcpxm]\d+)(?:\{k\d\})?$/;

/** A command a Cluster node refused with a redirect: its arguments and the simulated time. */
export interface Redirected {
  readonly args: readonly string[];
  readonly at: number;
}

export function checkRun(facts: RunFacts): string[] {
  const violations: string[] = [];
  const executions = tokenCounts(facts.log.map((entry) => entry.args));
  const redirects = tokenCounts(facts.redirected.map((entry) => entry.args));
  const echoes = echoCounts(facts.log);
  for (const op of facts.ops) {
    const problem = checkOp(op, facts, executions, redirects) ?? checkRejectedEcho(op, facts, echoes);
    if (problem !== undefined) violations.push(`op ${op.id} (${op.kind}): ${problem}`);
  }
  const circuits = new Map<string | undefined, Transition[]>();
  for (const transition of facts.transitions) {
    const sequence = circuits.get(transition.circuit) ?? [];
    sequence.push(transition);
    circuits.set(transition.circuit, sequence);
  }
  for (const [circuit, sequence] of circuits) {
    const found = checkTransitions(sequence, facts.openDuration);
    violations.push(
      ...found.map((violation) => (circuit === undefined ? violation : `${circuit}: ${violation}`)),
    );
  }
  violations.push(...checkMessages(facts.heard, facts.log));
  return violations;
}

/**
 * Pub/sub is at most once: every message heard was published, on the channel subscribed, heard
 * once, and in the order the server ran the PUBLISHes (a reconnect may lose some, never reorder).
 */
function checkMessages(heard: RunFacts['heard'], log: readonly ExecutedCommand[]): string[] {
  const order = new Map<string, number>();
  for (const entry of log)
    if (entry.args[0]?.toUpperCase() === 'PUBLISH') order.set(entry.args[2]!, order.size);
  let last = -1;
  const seen = new Set<string>();
  for (const { message, channel } of heard) {
    const position = order.get(message);
    if (channel !== CHANNEL) return [`heard ${message} on ${channel}, which was never subscribed`];
    if (position === undefined) return [`heard ${message}, which was never published`];
    if (seen.has(message)) return [`heard ${message} twice`];
    if (position < last) return [`heard ${message} out of publish order`];
    seen.add(message);
    last = position;
  }
  return [];
}

/** How many times the server ran each ECHO argument (an ECHO op's `e<id>`). */
function echoCounts(log: readonly ExecutedCommand[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { args } of log) {
    if (args[0]?.toUpperCase() === 'ECHO') counts.set(args[1]!, (counts.get(args[1]!) ?? 0) + 1);
  }
  return counts;
}

/**
 * Seed 000 "rejections send nothing", for reads too (the write check sees only executed writes):
 * an ECHO that ends rejected by the circuit was sent at most by its earlier attempts.
 */
function checkRejectedEcho(op: Op, facts: RunFacts, echoes: Map<string, number>): string | undefined {
  if (
    !op.kind.endsWith('ECHO') ||
    !(op.outcome?.ok === false && op.outcome.error instanceof RespireCircuitOpenError)
  )
    return undefined;
  const sent = echoes.get(`e${op.id}`) ?? 0;
  return sent > facts.retryAttempts - 1
    ? `rejected by the circuit, but ECHO e${op.id} ran ${sent} time(s) in at most ${facts.retryAttempts} attempt(s)`
    : undefined;
}

/** How many of these commands carry each write token. */
function tokenCounts(commands: readonly (readonly string[])[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const args of commands) {
    for (const arg of args) {
      const token = WRITE_TOKEN.exec(arg)?.[1];
      if (token !== undefined) counts.set(token, (counts.get(token) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * README "Redirects": a MOVED or ASK resends at the target, a TRYAGAIN after 10, 20, 40 … 160 ms,
 * each try a new write with its own acquire and reply deadlines. A write op's redirects (found by
 * its tokens) each add that much to its bound; so do a read's (GET, BLPOP: found by its command
 * and key while it ran, so a concurrent read of the same key may lend it one, the bound erring long).
 */
function redirectAllowance(op: Op, facts: RunFacts, redirects: Map<string, number>): number {
  const hops = Math.max(0, readRedirects(op, facts), ...op.writes.map((token) => redirects.get(token) ?? 0));
  return hops * (REDIRECT_BACKOFF_MAX_MS + facts.acquireTimeout + op.timeoutMs);
}

/** The redirects of a read op's command (its kind and key) between its start and its end. */
function readRedirects(op: Op, facts: RunFacts): number {
  if (op.key === undefined || op.writes.length > 0 || op.end === undefined) return 0;
  const end = op.end;
  return facts.redirected.filter(
    ({ args, at }) => args[0]?.toUpperCase() === op.kind && args[1] === op.key && at >= op.start && at <= end,
  ).length;
}

function checkOp(
  op: Op,
  facts: RunFacts,
  executions: Map<string, number>,
  redirects: Map<string, number>,
): string | undefined {
  const outcome = op.outcome;
  if (outcome === undefined || op.end === undefined) return 'never settled';
  const counts = op.writes.map((token) => executions.get(token) ?? 0);
  const twice = op.writes.find((_, i) => counts[i]! > 1);
  if (twice !== undefined) return `${twice} executed ${executions.get(twice)} times`;
  if (op.timeoutMs > 0) {
    const jumped = facts.jumps.reduce((sum, jump) => sum + jump.ms, 0);
    const bound =
      op.start +
      facts.retryAttempts * (facts.acquireTimeout + op.timeoutMs) +
      (op.extraMs ?? 0) +
      redirectAllowance(op, facts, redirects) +
      jumped +
      TIMER_SLACK_MS;
    if (op.end > bound) return `settled at ${op.end}, past its bound ${bound}`;
  }
  if (outcome.ok) {
    const mismatch = op.check(outcome.value);
    if (mismatch !== undefined) return `reply ${JSON.stringify(outcome.value)}: ${mismatch}`;
    if (!op.fireAndForget && (op.acknowledges?.(outcome.value) ?? true)) {
      const missing = op.writes.find((_, i) => counts[i] === 0);
      if (missing !== undefined) return `acknowledged, but ${missing} was never executed`;
    }
    if (op.acknowledges?.(outcome.value) === false && counts.some((count) => count > 0)) {
      return `answered ${JSON.stringify(outcome.value)}, but its writes were executed`;
    }
    return undefined;
  }
  const error = outcome.error;
  const written = (error as { written?: unknown }).written;
  const executed = counts.some((count) => count > 0);
  if (executed && written === false)
    return `failed with written: false, but was executed: ${describe(error)}`;
  if (executed && error instanceof RespireCircuitOpenError)
    return 'rejected by the circuit, but was executed';
  // README: a malformed frame fails every command in flight with RespireProtocolError, which has
  // no `written`: those commands were all written, so it is ambiguous too.
  const ambiguous = written === true || error instanceof RespireProtocolError || op.abortedAt !== undefined;
  if (executed && !ambiguous) {
    return `executed without acknowledgement, and the error is not ambiguous: ${describe(error)}`;
  }
  if (error instanceof RespireTimeoutError && error.phase === 'response') {
    if (op.noReplyDeadline === true) return `has no reply deadline, but timed out: ${describe(error)}`;
    const timeoutMs = error.timeoutMs ?? 0;
    if (op.end - op.start < timeoutMs - 1e-6) {
      return `timed out after ${op.end - op.start} ms of ${timeoutMs}: ${describe(error)}`;
    }
  }
  if (
    error instanceof RespireConnectionError &&
    error.message === 'the client is closed' &&
    op.end < facts.closedAt
  ) {
    return 'told the client is closed before close()';
  }
  return undefined;
}

/** The circuit's edges (BREAKER.md): closed→open, open→half_open after openDuration, half_open→closed|open. */
function checkTransitions(transitions: readonly Transition[], openDuration: number | undefined): string[] {
  const edges = new Set(['closed>open', 'open>half_open', 'half_open>closed', 'half_open>open']);
  const violations: string[] = [];
  let state = 'closed';
  let openedAt = 0;
  for (const { from, to, time } of transitions) {
    if (from !== state) violations.push(`circuit went ${from}→${to} at ${time}, but it was ${state}`);
    if (!edges.has(`${from}>${to}`)) violations.push(`circuit took the edge ${from}→${to} at ${time}`);
    if (to === 'open') openedAt = time;
    if (
      from === 'open' &&
      to === 'half_open' &&
      openDuration !== undefined &&
      time - openedAt < openDuration - 1e-6
    ) {
      violations.push(
        `circuit half-opened ${time - openedAt} ms after opening (openDuration ${openDuration})`,
      );
    }
    state = to;
  }
  return violations;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
