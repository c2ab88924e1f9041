// Deterministic simulation (issue 16): the client's real code against the simulated network and
// Redis, a few hundred seeds per `npm test`; `npm run simulate -- --seeds 100000` runs many more.
// A failing seed prints the one line that replays it and the trace leading to what broke.
import { describe, expect, it } from 'vitest';
import { checkRun, type RunFacts } from './invariants.js';
import { failureReport } from './report.js';
import { runSeed } from './run.js';
import type { Op } from './workload.js';

/** Seeds per `npm test`; SIM_START moves the window (the CLI explores further). */
const SEEDS = 250;
const START = Number(process.env.SIM_START ?? 1);

describe('simulation', () => {
  // About 8 s of CPU; the timeout allows for a 2-core machine running other test files beside it.
  it(`holds every invariant for seeds ${START}..${START + SEEDS - 1}`, { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    let ops = 0;
    for (let seed = START; seed < START + SEEDS; seed++) {
      const result = await runSeed(seed);
      ops += result.ops;
      if (result.violations.length > 0) failures.push(failureReport(result));
    }
    // Most runs get past their first connection and do real work.
    expect(ops).toBeGreaterThan(SEEDS * 30);
    expect(failures.slice(0, 2).join('\n\n')).toBe('');
  });

  it('replays a seed exactly', async () => {
    const first = await runSeed(7);
    const second = await runSeed(7);
    expect(second.trace).toEqual(first.trace);
    expect(second.events).toBe(first.events);
  });
});

describe('invariants', () => {
  const facts = (ops: Op[], log: RunFacts['log'] = []): RunFacts => ({
    ops,
    log,
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
});
