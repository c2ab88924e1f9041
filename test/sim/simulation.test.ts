// Deterministic simulation (issue 16): the client's real code against the simulated network and
// Redis, a few hundred seeds per `npm test`; `npm run simulate -- --seeds 100000` runs many more.
// A failing seed prints the one line that replays it and the trace leading to what broke.
import { describe, expect, it } from 'vitest';
import {
  RespireCircuitOpenError,
  RespireConnectionError,
  RespireProtocolError,
  RespireTimeoutError,
} from '../../src/errors.js';
import { systemClock } from '../../src/util/clock.js';
import { startTimer, stopTimer } from '../../src/util/timers.js';
import { watchGlobalTimers } from './global-timers.js';
import { checkRun, type RunFacts } from './invariants.js';
import { failureReport } from './report.js';
import { runSeed } from './run.js';
import { slotOf } from './slot.js';
import { CHANNEL, type Op } from './workload.js';
import { MODES, type Mode } from './worlds.js';

/**
 * Seeds per `npm test` and world, from 1: a plain prefix, not picked around failing seeds (the
 * Cluster one takes in 111, 148 and 149, which broke invariants before). SIM_START moves the
 * windows (the CLI explores further).
 */
const SEEDS: Record<Mode, number> = { standalone: 250, cluster: 150, sentinel: 100 };
const START = Number(process.env.SIM_START ?? 1);

describe('simulation', () => {
  // About 8 s of CPU for the standalone seeds, 12 s for the Cluster ones and 6 s for the Sentinel
  // ones; the timeout allows for a 2-core machine running other test files beside it.
  for (const mode of MODES) {
    const seeds = SEEDS[mode];
    it(`holds every invariant in the ${mode} world for seeds ${START}..${START + seeds - 1}`, {
      timeout: 180_000,
    }, async () => {
      const failures: string[] = [];
      let ops = 0;
      for (let seed = START; seed < START + seeds; seed++) {
        const result = await runSeed(seed, { mode });
        ops += result.ops;
        if (result.violations.length > 0) failures.push(failureReport(result));
      }
      // Most runs get past their first connection and do real work.
      expect(ops).toBeGreaterThan(seeds * 30);
      expect(failures.slice(0, 2).join('\n\n')).toBe('');
    });
  }

  it('catches a global timer started by the client, which would run outside the simulated clock', () => {
    const found = new Set<string>();
    const restore = watchGlobalTimers(found);
    try {
      stopTimer(
        systemClock,
        startTimer(systemClock, () => {}, 1),
      );
      clearTimeout(setTimeout(() => {}, 1));
    } finally {
      restore();
    }
    expect([...found]).toEqual([
      expect.stringMatching(/^setTimeout from startTimer \(.*src[/\\]util[/\\]timers\.ts:/),
    ]);
  });

  it('replays a seed exactly, in every world', async () => {
    for (const mode of MODES) {
      const first = await runSeed(7, { mode });
      const second = await runSeed(7, { mode });
      expect(second.trace).toEqual(first.trace);
      expect(second.events).toBe(first.events);
    }
  });

  it("hashes keys to the Cluster specification's slots, apart from the client's code", () => {
    // CRC16/XMODEM of "123456789" is 0x31C3 (the specification's check value).
    expect(slotOf('123456789')).toBe(0x31c3);
    expect(slotOf('{user1000}.following')).toBe(slotOf('{user1000}.followers'));
    // An empty tag does not count: the whole key is hashed; the first '{' opens the tag.
    expect(slotOf('foo{}{bar}')).not.toBe(slotOf('bar'));
    expect(slotOf('foo{{bar}}zap')).toBe(slotOf('{bar'));
  });
});

describe('invariants', () => {
  const facts = (ops: Op[], log: RunFacts['log'] = []): RunFacts => ({
    ops,
    log,
    redirected: [],
    acquireTimeout: 100,
    retryAttempts: 1,
    jumps: [],
    closedAt: 1000,
    transitions: [],
    openDuration: undefined,
    heard: [],
  });
  const op = (fields: Partial<Op>): Op => ({
    id: 1,
    kind: 'SET',
    start: 0,
    end: 10,
    writes: ['v1'],
    timeoutMs: 50,
    fireAndForget: false,
    check: (value) => (value === 'OK' ? undefined : "expected 'OK'"),
    ...fields,
  });
  const executed = (...args: string[]) => ({ time: 1, link: 1, args, reply: null, inTransaction: false });

  it('catch an acknowledged write the server never ran', () => {
    expect(checkRun(facts([op({ outcome: { ok: true, value: 'OK' } })]))).toEqual([
      'op 1 (SET): acknowledged, but v1 was never executed',
    ]);
  });

  it('catch a write run twice, a reply meant for another command, and a late settle', () => {
    const twice = op({ outcome: { ok: true, value: 'OK' } });
    const misaligned = op({ id: 2, writes: [], outcome: { ok: true, value: 'e7' } });
    const late = op({ id: 3, writes: [], end: 500, outcome: { ok: true, value: 'OK' } });
    const never = op({ id: 4, writes: [], end: undefined });
    expect(
      checkRun(
        facts([twice, misaligned, late, never], [executed('SET', 'k', 'v1'), executed('SET', 'k', 'v1')]),
      ),
    ).toEqual([
      'op 1 (SET): v1 executed 2 times',
      `op 2 (SET): reply "e7": expected 'OK'`,
      'op 3 (SET): settled at 500, past its bound 152',
      'op 4 (SET): never settled',
    ]);
  });

  it('allow a redirected write one more try per redirect, and no more', () => {
    // Bound 152 plus, per redirect, the longest TRYAGAIN backoff, acquireTimeout and its timeout.
    const late = (end: number) => op({ end, outcome: { ok: true, value: 'OK' } });
    const run = (end: number) =>
      checkRun({
        ...facts([late(end)], [executed('SET', 'k', 'v1')]),
        redirected: [{ args: ['SET', 'k', 'v1'], at: 5 }],
      });
    expect(run(400)).toEqual([]);
    expect(run(500)).toEqual(['op 1 (SET): settled at 500, past its bound 462']);
  });

  it('allow a redirected read one more try per redirect of its command while it ran', () => {
    const read = (end: number) =>
      op({
        kind: 'GET',
        key: 'k',
        writes: [],
        end,
        outcome: { ok: true, value: null },
        check: () => undefined,
      });
    const run = (end: number, at: number) =>
      checkRun({ ...facts([read(end)]), redirected: [{ args: ['GET', 'k'], at }] });
    expect(run(400, 5)).toEqual([]);
    // A redirect of the same key before the read began is another read's.
    expect(run(400, -1)).toEqual(['op 1 (GET): settled at 400, past its bound 152']);
  });

  it('catch a write run behind an error that says it was not sent', () => {
    const error = Object.assign(new Error('unsent'), { written: false });
    expect(checkRun(facts([op({ outcome: { ok: false, error } })], [executed('SET', 'k', 'v1')]))).toEqual([
      'op 1 (SET): failed with written: false, but was executed: Error: unsent',
    ]);
  });

  it('catch a circuit that skips an edge or half-opens early', () => {
    const run = { ...facts([]), openDuration: 100 };
    const transitions = [
      { from: 'closed', to: 'open', time: 10 },
      { from: 'open', to: 'half_open', time: 50 },
      { from: 'half_open', to: 'closed', time: 60 },
      { from: 'closed', to: 'half_open', time: 70 },
    ];
    expect(checkRun({ ...run, transitions })).toEqual([
      'circuit half-opened 40 ms after opening (openDuration 100)',
      'circuit took the edge closed→half_open at 70',
    ]);
  });

  it('catch a refused WATCH transaction whose write ran anyway, and a circuit rejection that ran', () => {
    const refused = op({
      kind: 'WATCH',
      acknowledges: (value) => value !== null,
      check: () => undefined,
      outcome: { ok: true, value: null },
    });
    const rejected = op({
      id: 2,
      writes: ['v2'],
      outcome: { ok: false, error: new RespireCircuitOpenError({ host: 'h', port: 1 }, 10) },
    });
    expect(
      checkRun(facts([refused, rejected], [executed('SET', 'k', 'v1'), executed('SET', 'k', 'v2')])),
    ).toEqual([
      'op 1 (WATCH): answered null, but its writes were executed',
      'op 2 (SET): rejected by the circuit, but was executed',
    ]);
  });

  it('catch a rejected read whose last attempt was sent, and allow the sends of earlier attempts', () => {
    const rejectedEcho = (id: number) =>
      op({
        id,
        kind: 'batch ECHO',
        writes: [],
        outcome: { ok: false, error: new RespireCircuitOpenError({ host: 'h', port: 1 }, 10) },
      });
    const log = [executed('ECHO', 'e1'), executed('ECHO', 'e2')];
    expect(checkRun(facts([rejectedEcho(1)], log))).toEqual([
      'op 1 (batch ECHO): rejected by the circuit, but ECHO e1 ran 1 time(s) in at most 1 attempt(s)',
    ]);
    expect(checkRun({ ...facts([rejectedEcho(2)], log), retryAttempts: 2 })).toEqual([]);
  });

  it('catch a write run behind an error that is not ambiguous, and accept the ambiguous ones', () => {
    const log = [1, 2, 3, 4, 5].map((n) => executed('SET', 'k', `v${n}`));
    const failed = (id: number, error: unknown, fields: Partial<Op> = {}) =>
      op({ id, writes: [`v${id}`], outcome: { ok: false, error }, ...fields });
    const plain = failed(1, new Error('boom'));
    const written = failed(2, new RespireConnectionError('lost', { written: true }));
    const malformed = failed(3, new RespireProtocolError('bad frame'));
    const aborted = failed(4, new Error('aborted'), { abortedAt: 5 });
    const unknown = failed(5, new RespireConnectionError('lost'));
    expect(checkRun(facts([plain, written, malformed, aborted, unknown], log))).toEqual([
      'op 1 (SET): executed without acknowledgement, and the error is not ambiguous: Error: boom',
      'op 5 (SET): executed without acknowledgement, and the error is not ambiguous: RespireConnectionError: lost',
    ]);
  });

  it('catch a reply timeout without a reply deadline or before it, and a closed client before close()', () => {
    const timedOut = (ms: number) =>
      new RespireTimeoutError('timed out', 'response', { timeoutMs: ms, written: true });
    const noDeadline = op({ writes: [], noReplyDeadline: true, outcome: { ok: false, error: timedOut(50) } });
    const early = op({ id: 2, writes: [], end: 30, outcome: { ok: false, error: timedOut(50) } });
    const onTime = op({ id: 3, writes: [], end: 50, outcome: { ok: false, error: timedOut(50) } });
    const closed = new RespireConnectionError('the client is closed', { written: false });
    const closedEarly = op({
      id: 4,
      writes: [],
      timeoutMs: 0,
      end: 999,
      outcome: { ok: false, error: closed },
    });
    const closedLate = op({
      id: 5,
      writes: [],
      timeoutMs: 0,
      end: 1000,
      outcome: { ok: false, error: closed },
    });
    expect(checkRun(facts([noDeadline, early, onTime, closedEarly, closedLate]))).toEqual([
      'op 1 (SET): has no reply deadline, but timed out: RespireTimeoutError: timed out',
      'op 2 (SET): timed out after 30 ms of 50: RespireTimeoutError: timed out',
      'op 4 (SET): told the client is closed before close()',
    ]);
  });

  it('catch a message never published, heard twice, out of order, or on a channel never subscribed', () => {
    const published = ['m1', 'm2'].map((message) => executed('PUBLISH', CHANNEL, message));
    const heard = (...messages: string[]) => messages.map((message) => ({ message, channel: CHANNEL }));
    const run = (messages: RunFacts['heard']) => checkRun({ ...facts([], published), heard: messages });
    expect(run(heard('m2'))).toEqual([]);
    expect(run(heard('m3'))).toEqual(['heard m3, which was never published']);
    expect(run(heard('m1', 'm1'))).toEqual(['heard m1 twice']);
    expect(run(heard('m2', 'm1'))).toEqual(['heard m1 out of publish order']);
    expect(run([{ message: 'm1', channel: 'other' }])).toEqual([
      'heard m1 on other, which was never subscribed',
    ]);
  });

  it('catch a transition from a state the circuit was not in', () => {
    const transitions = [
      { from: 'closed', to: 'open', time: 10 },
      { from: 'closed', to: 'open', time: 20 },
    ];
    expect(checkRun({ ...facts([]), transitions })).toEqual([
      'circuit went closed→open at 20, but it was open',
    ]);
  });
});
