// A seeded simulation of the pipeline under faults (issue 3 "Tests"): 100k concurrent mixed
// commands with random aborts and per-command timeouts through the fault proxy with random delays.
// Every reply is checked against its own command, every rejection against what may cause it, and
// afterwards the server's data against what was acknowledged (nothing acknowledged lost, nothing
// that failed unsent applied, nothing replayed). Replay a run with `SEED=<n>`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient, RespireConnectionError, RespireTimeoutError } from '../../src/index.js';
import { type FaultProxy, startFaultProxy } from '../kit/fault-proxy.js';
import { seededRandom } from '../kit/seeded-random.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextTurn } from './support.js';

type Kind = 'SET' | 'GET' | 'INCR' | 'ECHO';

/** How the simulation treats one command, decided before it is issued. */
interface Planned {
  kind: Kind;
  args: string[];
  expected: string | number;
  /** The key whose state after the run tells whether the command ran (SET, INCR). */
  effectKey: string | undefined;
  abort: 'none' | 'beforeWrite' | 'afterWrite' | 'later';
  reason: Error | undefined;
  shortTimeoutMs: number | undefined;
}

interface Settled {
  plan: Planned;
  status: 'fulfilled' | 'rejected';
  value?: unknown;
  error?: unknown;
}

const TOTAL = 100_000;
const ROUND = 5000;
const GET_KEYS = 1000;

describe.each([3, 2] as const)('FIFO alignment under faults (protocol %i)', (protocol) => {
  const server = useRedisServer();
  const random = seededRandom();
  let proxy: FaultProxy;
  let redis: RespireClient;
  let checker: RespireClient;

  beforeAll(async () => {
    proxy = await startFaultProxy({ target: { host: server.host, port: server.port } });
    const reconnectRandom = random.fork();
    redis = await RespireClient.connect({
      endpoints: [{ host: proxy.host, port: proxy.port }],
      protocol,
      commandTimeout: 10_000,
      acquireTimeout: 10_000,
      reconnect: () => reconnectRandom.int(0, 5),
    });
    checker = await RespireClient.connect({ endpoints: [{ host: server.host, port: server.port }] });
    await Promise.all(Array.from({ length: GET_KEYS }, (_, j) => checker.set(`fifo:g:${j}`, `gv:${j}`)));
  });

  afterAll(async () => {
    redis?.destroy();
    checker?.destroy();
    await proxy?.stop();
  });

  function plan(id: number): Planned {
    const kind = random.pick<Kind>(['SET', 'GET', 'INCR', 'ECHO']);
    let args: string[];
    let expected: string | number;
    let effectKey: string | undefined;
    if (kind === 'SET') {
      effectKey = `fifo:s:${id}`;
      args = ['SET', effectKey, `sv:${id}`];
      expected = 'OK';
    } else if (kind === 'GET') {
      const j = random.int(0, GET_KEYS - 1);
      args = ['GET', `fifo:g:${j}`];
      expected = `gv:${j}`;
    } else if (kind === 'INCR') {
      effectKey = `fifo:n:${id}`;
      args = ['INCR', effectKey];
      expected = 1;
    } else {
      args = ['ECHO', `e:${id}:${random.uint32().toString(36)}`];
      expected = args[1]!;
    }
    const roll = random.next();
    const abort =
      roll < 0.01 ? 'beforeWrite' : roll < 0.02 ? 'afterWrite' : roll < 0.03 ? 'later' : ('none' as const);
    return {
      kind,
      args,
      expected,
      effectKey,
      abort,
      reason: abort === 'none' ? undefined : new Error(`abort ${id}`),
      // Rare: a passed reply deadline fails that command alone; its late reply is read and dropped.
      shortTimeoutMs: random.chance(0.0003) ? random.int(1, 30) : undefined,
    };
  }

  /** Issues one round in a few ticks; resolves with every outcome. */
  async function runRound(firstId: number): Promise<Settled[]> {
    const pending: Promise<Settled>[] = [];
    let id = firstId;
    let cut = false;
    while (id < firstId + ROUND) {
      const tickSize = Math.min(random.int(1, 2000), firstId + ROUND - id);
      for (let i = 0; i < tickSize; i++, id++) {
        const planned = plan(id);
        const controller = planned.abort === 'none' ? undefined : new AbortController();
        const promise = redis.send(planned.args, {
          signal: controller?.signal,
          timeout: planned.shortTimeoutMs,
        });
        if (controller !== undefined) {
          const abort = () => controller.abort(planned.reason);
          // Same tick: before the flush writes it. A microtask later: after the flush wrote it
          // (when the connection was up). Later: while its reply may be on the way.
          if (planned.abort === 'beforeWrite') abort();
          else if (planned.abort === 'afterWrite') queueMicrotask(() => queueMicrotask(abort));
          else setTimeout(abort, random.int(0, 10));
        }
        pending.push(
          promise.then(
            (value) => ({ plan: planned, status: 'fulfilled', value }),
            (error: unknown) => ({ plan: planned, status: 'rejected', error }),
          ),
        );
      }
      // Now and then the connection is cut mid-round (every 5th round at least): what was in
      // flight on it fails with `written: true`, and the client reconnects.
      if (random.chance(0.02) || (firstId % (5 * ROUND) === 0 && id - firstId >= ROUND / 2 && !cut)) {
        cut = true;
        void proxy.closeAllConnections();
      }
      if (random.chance(0.5)) await nextTurn();
    }
    return Promise.all(pending);
  }

  /** Whether the outcome is one this command may have; returns a description when not. */
  function violation(outcome: Settled): string | undefined {
    const { plan: planned } = outcome;
    if (outcome.status === 'fulfilled') {
      return outcome.value === planned.expected
        ? undefined
        : `${planned.args.join(' ')} resolved ${JSON.stringify(outcome.value)}, expected ${JSON.stringify(planned.expected)}`;
    }
    const error = outcome.error;
    if (planned.reason !== undefined && error === planned.reason) return undefined;
    if (planned.abort === 'beforeWrite')
      return `${planned.args[0]} aborted before its write rejected with ${String(error)}`;
    if (error instanceof RespireConnectionError) return undefined;
    if (error instanceof RespireTimeoutError) {
      if (error.phase === 'response' && error.written === true && planned.shortTimeoutMs !== undefined)
        return undefined;
      if (error.phase === 'acquire' && error.written === false) return undefined;
    }
    return `${planned.args.join(' ')} rejected with ${String(error)}`;
  }

  /** Whether the command can have reached the server, judged from its outcome alone. */
  function mayHaveRun(outcome: Settled): 'yes' | 'no' | 'maybe' {
    if (outcome.status === 'fulfilled') return 'yes';
    if (outcome.plan.abort === 'beforeWrite') return 'no';
    const error = outcome.error as { written?: boolean } | undefined;
    if (error?.written === false) return 'no';
    return 'maybe';
  }

  it('matches every reply to its own command through 100k commands with faults', async () => {
    const outcomes: Settled[] = [];
    for (let first = 0; first < TOTAL; first += ROUND) {
      if (random.chance(0.4)) await proxy.setMode('pass');
      else {
        await proxy.setMode(
          'delay',
          random.int(1, 15),
          random.pick(['toServer', 'toClient', 'both'] as const),
        );
      }
      outcomes.push(...(await runRound(first)));
    }
    await proxy.setMode('pass');

    const problems = outcomes.map(violation).filter((problem) => problem !== undefined);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(outcomes).toHaveLength(TOTAL);

    // The server's data agrees with the outcomes: acknowledged writes are there exactly once,
    // writes that failed unsent are not, and no written command was replayed.
    const withEffect = outcomes.filter((outcome) => outcome.plan.effectKey !== undefined);
    const stored: unknown[] = [];
    for (let i = 0; i < withEffect.length; i += 1000) {
      const keys = withEffect.slice(i, i + 1000).map((outcome) => outcome.plan.effectKey!);
      stored.push(...((await checker.send(['MGET', ...keys])) as unknown[]));
    }
    const dataProblems: string[] = [];
    withEffect.forEach((outcome, i) => {
      const value = stored[i];
      const ran = outcome.plan.kind === 'SET' ? value === outcome.plan.args[2] : value === '1';
      const absent = value === null;
      const verdict = mayHaveRun(outcome);
      if (!ran && !absent) dataProblems.push(`${outcome.plan.effectKey} holds ${String(value)}`);
      else if (verdict === 'yes' && !ran)
        dataProblems.push(`${outcome.plan.effectKey}: acknowledged but absent`);
      else if (verdict === 'no' && !absent)
        dataProblems.push(`${outcome.plan.effectKey}: failed unsent but applied`);
    });
    expect(dataProblems.slice(0, 10)).toEqual([]);

    const count = (predicate: (outcome: Settled) => boolean) => outcomes.filter(predicate).length;
    const fulfilled = count((outcome) => outcome.status === 'fulfilled');
    const aborted = count(
      (outcome) => outcome.status === 'rejected' && outcome.error === outcome.plan.reason,
    );
    const timedOut = count((outcome) => outcome.error instanceof RespireTimeoutError);
    const lost = count((outcome) => outcome.error instanceof RespireConnectionError);
    console.log(
      `RESP${protocol} seed ${random.seed}: ${fulfilled} fulfilled, ${aborted} aborted, ${timedOut} timed out, ` +
        `${lost} lost with a replaced connection, ${proxy.connectionsAccepted} connections`,
    );
    // The run exercised what it claims to: aborts both sides of the write, and some successes.
    expect(aborted).toBeGreaterThan(1000);
    expect(fulfilled).toBeGreaterThan(5000);
    expect(proxy.connectionsAccepted).toBeGreaterThan(1);
    // And the client is still aligned afterwards.
    const tail = await Promise.all(Array.from({ length: 100 }, (_, i) => redis.echo(`tail${i}`)));
    expect(tail).toEqual(Array.from({ length: 100 }, (_, i) => `tail${i}`));
  }, 120_000);
});
