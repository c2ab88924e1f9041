// Issue 15 break attempt (wt-break15; no defect found): shared-success-lanes.test.ts with the lanes'
// owners changing under pending successes. Twelve views of one thread stand in for threads (views
// whose holder record is 8 or more have no lane); a view may let go of everything and be replaced
// by a new one (its holder record, so its lane, goes to whichever view asks next, with its
// successes still pending in it), take and release other endpoints through a table of 3 slots
// (slot churn, its record kept), or record bursts of up to 70 successes (lanes filled to their 30th
// entry and past it). Windows, ring sizes and clock steps land on the boundaries. A single-thread
// CircuitBreaker given the same commands in the same order is the oracle, command by command.
// More runs: SHARED_LANES_RUNS=20000.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  CircuitBreaker,
  CircuitOutcome,
  type SharedCircuit,
  SharedCircuitRegistry,
} from '../../src/breaker/index.js';

const VIEWS = 12;
type Cmd =
  | { k: 'admit'; v: number }
  | { k: 'complete'; pick: number; o: CircuitOutcome }
  | { k: 'advance'; by: number }
  | { k: 'snap'; v: number }
  | { k: 'burst'; v: number; n: number }
  | { k: 'reattach'; v: number }
  | { k: 'other'; v: number };

const v = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.constant(1) },
  { weight: 2, arbitrary: fc.nat(VIEWS - 1) },
);
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ k: fc.constant('admit' as const), v }) },
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant('complete' as const),
      pick: fc.nat(),
      o: fc.oneof(
        { weight: 6, arbitrary: fc.constant(CircuitOutcome.Success) },
        { weight: 3, arbitrary: fc.constant(CircuitOutcome.Failure) },
        { weight: 1, arbitrary: fc.constant(CircuitOutcome.None) },
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant('advance' as const),
      by: fc.oneof(fc.nat(4), fc.constantFrom(10, 29, 30, 31)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('snap' as const), v }) },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constant('burst' as const), v, n: fc.integer({ min: 1, max: 70 }) }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('reattach' as const), v }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('other' as const), v }) },
);
const opts = fc
  .record({
    maximumSampleCount: fc.integer({ min: 1, max: 80 }),
    samplingWindow: fc.integer({ min: 1, max: 30 }),
    minimumFailureCount: fc.integer({ min: 1, max: 3 }),
    failureRateThreshold: fc.constantFrom(0.02, 0.2, 0.5, 0.75),
    openDuration: fc.integer({ min: 1, max: 10 }),
    halfOpenProbeCount: fc.integer({ min: 1, max: 3 }),
  })
  .map((o) => ({ ...o, minimumFailureCount: Math.min(o.minimumFailureCount, o.maximumSampleCount) }));

function counts(s: ReturnType<CircuitBreaker['snapshot']>) {
  const { state, failures, total, probesInFlight, probeSuccesses, openUntil, consecutiveTrips } = s;
  return { state, failures, total, probesInFlight, probeSuccesses, openUntil, consecutiveTrips };
}

it('keep every view where a single-thread circuit is while lanes change hands', () => {
  fc.assert(
    fc.property(opts, fc.array(cmd, { minLength: 1, maxLength: 300 }), (o, cmds) => {
      const clock = { time: 0, now: () => clock.time };
      const oracle = new CircuitBreaker(o, clock);
      const registry = new SharedCircuitRegistry({ ...o, maxEndpoints: 3, maxIdleHistories: 1 }, clock);
      const regs = Array.from({ length: VIEWS }, () => SharedCircuitRegistry.attach(registry.buffer, clock));
      const views = regs.map((r) => r.circuit('redis:6379'));
      const inFlight: { view: number; ticket: number; expected: number; c: SharedCircuit }[] = [];
      let otherN = 0;
      for (const [step, n] of cmds.entries()) {
        const where = { step, n };
        if (n.k === 'admit') {
          const ticket = views[n.v]!.tryAdmit();
          const expected = oracle.tryAdmit();
          expect({ ...where, a: Math.min(ticket, 0) }).toEqual({ ...where, a: Math.min(expected, 0) });
          if (ticket >= 0) inFlight.push({ view: n.v, ticket, expected, c: views[n.v]! });
        } else if (n.k === 'burst') {
          for (let i = 0; i < n.n; i++) {
            const t = views[n.v]!.tryAdmit();
            const e = oracle.tryAdmit();
            expect({ ...where, i, a: Math.min(t, 0) }).toEqual({ ...where, i, a: Math.min(e, 0) });
            if (t >= 0) {
              views[n.v]!.complete(t, CircuitOutcome.Success);
              oracle.complete(e, CircuitOutcome.Success);
            }
          }
        } else if (n.k === 'complete' && inFlight.length > 0) {
          const [a] = inFlight.splice(n.pick % inFlight.length, 1);
          a!.c.complete(a!.ticket, n.o);
          oracle.complete(a!.expected, n.o);
        } else if (n.k === 'advance') {
          clock.time += n.by;
        } else if (n.k === 'snap') {
          expect({ ...where, ...counts(views[n.v]!.snapshot()) }).toEqual({
            ...where,
            ...counts(oracle.snapshot()),
          });
        } else if (n.k === 'reattach') {
          // the view lets go (its record may be reused) and a new view takes its place
          regs[n.v]!.detach();
          regs[n.v] = SharedCircuitRegistry.attach(registry.buffer, clock);
          views[n.v] = regs[n.v]!.circuit('redis:6379');
        } else if (n.k === 'other') {
          // other endpoints come and go through this view: slot churn, record kept
          const lease = regs[n.v]!.acquire(`other-${otherN++ % 3}:1`);
          lease.release();
        }
        expect({ ...where, state: views[0]!.state }).toEqual({ ...where, state: oracle.state });
      }
      for (const a of inFlight) {
        a.c.complete(a.ticket, CircuitOutcome.Success);
        oracle.complete(a.expected, CircuitOutcome.Success);
      }
      expect(counts(views[0]!.snapshot())).toEqual(counts(oracle.snapshot()));
    }),
    { numRuns: Number(process.env.SHARED_LANES_RUNS ?? 1_500) },
  );
}, 120_000);
