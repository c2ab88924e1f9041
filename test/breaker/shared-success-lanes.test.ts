// Closed successes that skip a shared circuit's guard (shared/circuit-guard.ts): each is counted in
// with one compareExchange and its time is kept in its view's lane until the next holder of the
// guard appends them to the ring. The model runs (shared-model.test.ts) read a snapshot after every
// command, so at most one success is ever pending there; here snapshots are rare, so many pending
// successes of several lanes, at several times, meet failures, trips, stale tickets and expiry.
// Ten views stand in for threads (views 8 and 9 have no lane: their successes take the guard), all
// on one endpoint, and a single-thread CircuitBreaker given the same commands in the same order is
// the oracle (the model test checks it against the reference model).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CircuitBreaker,
  CircuitOutcome,
  type RespireCircuitBreakerOptions,
  SharedCircuitRegistry,
} from '../../src/breaker/index.js';

const VIEWS = 10;

type Command =
  | { kind: 'admit'; view: number }
  | { kind: 'complete'; pick: number; outcome: CircuitOutcome }
  | { kind: 'advance'; by: number }
  | { kind: 'snapshot' };

/** Mostly views 0 and 1, so that one lane often holds several successes at different times. */
const view = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.constant(1) },
  { weight: 2, arbitrary: fc.nat(VIEWS - 1) },
);

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('admit' as const), view }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('complete' as const),
      pick: fc.nat(),
      outcome: fc.oneof(
        { weight: 6, arbitrary: fc.constant(CircuitOutcome.Success) },
        { weight: 3, arbitrary: fc.constant(CircuitOutcome.Failure) },
        { weight: 1, arbitrary: fc.constant(CircuitOutcome.None) },
      ),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), by: fc.nat(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('snapshot' as const) }) },
);

const options: fc.Arbitrary<RespireCircuitBreakerOptions> = fc.record({
  maximumSampleCount: fc.integer({ min: 4, max: 40 }),
  samplingWindow: fc.integer({ min: 1, max: 30 }),
  minimumFailureCount: fc.integer({ min: 1, max: 3 }),
  failureRateThreshold: fc.constantFrom(0.2, 0.5, 0.75),
  openDuration: fc.integer({ min: 1, max: 10 }),
  halfOpenProbeCount: fc.integer({ min: 1, max: 3 }),
});

function counts(snapshot: ReturnType<CircuitBreaker['snapshot']>) {
  const { state, failures, total, probesInFlight, probeSuccesses, openUntil, consecutiveTrips } = snapshot;
  return { state, failures, total, probesInFlight, probeSuccesses, openUntil, consecutiveTrips };
}

describe('closed successes that skip the shared guard', () => {
  it('leave every view of a shared circuit where a single-thread circuit is, command by command', () => {
    fc.assert(
      fc.property(
        options,
        fc.array(command, { minLength: 1, maxLength: 300 }),
        (circuitOptions, commands) => {
          const clock = { time: 0, now: () => clock.time };
          const oracle = new CircuitBreaker(circuitOptions, clock);
          const registry = new SharedCircuitRegistry({ ...circuitOptions, maxEndpoints: 1 }, clock);
          const views = Array.from({ length: VIEWS }, () =>
            SharedCircuitRegistry.attach(registry.buffer, clock).circuit('redis:6379'),
          );
          const inFlight: { view: number; ticket: number; expected: number }[] = [];
          for (const [step, next] of commands.entries()) {
            const where = { step, next };
            if (next.kind === 'admit') {
              const ticket = views[next.view]!.tryAdmit();
              const expected = oracle.tryAdmit();
              expect({ ...where, admitted: Math.min(ticket, 0) }).toEqual({
                ...where,
                admitted: Math.min(expected, 0),
              });
              if (ticket >= 0) inFlight.push({ view: next.view, ticket, expected });
            } else if (next.kind === 'complete' && inFlight.length > 0) {
              const [admission] = inFlight.splice(next.pick % inFlight.length, 1);
              views[admission!.view]!.complete(admission!.ticket, next.outcome);
              oracle.complete(admission!.expected, next.outcome);
            } else if (next.kind === 'advance') {
              clock.time += next.by;
            } else if (next.kind === 'snapshot') {
              expect({ ...where, ...counts(views[step % VIEWS]!.snapshot()) }).toEqual({
                ...where,
                ...counts(oracle.snapshot()),
              });
            }
            expect({ ...where, state: views[0]!.state }).toEqual({ ...where, state: oracle.state });
          }
          for (const { view, ticket, expected } of inFlight) {
            views[view]!.complete(ticket, CircuitOutcome.Success);
            oracle.complete(expected, CircuitOutcome.Success);
          }
          expect(counts(views[0]!.snapshot())).toEqual(counts(oracle.snapshot()));
        },
      ),
      { numRuns: 1_500 },
    );
  });

  /** Two views and the oracle, driven by name: `admit(name, view)`, `complete(name, outcome)`. */
  function pair(circuitOptions: RespireCircuitBreakerOptions) {
    const clock = { time: 0, now: () => clock.time };
    const oracle = new CircuitBreaker(circuitOptions, clock);
    const registry = new SharedCircuitRegistry({ ...circuitOptions, maxEndpoints: 1 }, clock);
    const views = [0, 1].map(() =>
      SharedCircuitRegistry.attach(registry.buffer, clock).circuit('redis:6379'),
    );
    const tickets = new Map<string, [view: number, ticket: number, expected: number]>();
    return {
      clock,
      admit(name: string, view: number): void {
        const ticket = views[view]!.tryAdmit();
        const expected = oracle.tryAdmit();
        expect([ticket >= 0, expected >= 0]).toEqual([true, true]);
        tickets.set(name, [view, ticket, expected]);
      },
      complete(name: string, outcome: CircuitOutcome): void {
        const [view, ticket, expected] = tickets.get(name)!;
        views[view]!.complete(ticket, outcome);
        oracle.complete(expected, outcome);
      },
      run(view: number, outcome: CircuitOutcome): void {
        this.admit('run', view);
        this.complete('run', outcome);
      },
      agree(at: number): void {
        clock.time = at;
        expect({ at, ...counts(views[0]!.snapshot()) }).toEqual({ at, ...counts(oracle.snapshot()) });
      },
    };
  }

  it("keep each success's own time when another view's success takes the guard", () => {
    const circuits = pair({ samplingWindow: 10, maximumSampleCount: 100 });
    circuits.run(1, CircuitOutcome.Success); // view 1 knows the guard's free value
    circuits.run(0, CircuitOutcome.Success); // the guard, then view 0's lane is open to it
    circuits.clock.time = 1;
    circuits.run(0, CircuitOutcome.Success); // pending in view 0's lane, at 1
    circuits.clock.time = 5;
    circuits.run(1, CircuitOutcome.Success); // must take the guard: view 0's lane holds one
    circuits.agree(10);
    circuits.agree(11);
    circuits.agree(15);
  });

  it('count a success of an earlier generation for nothing, on either side of a trip', () => {
    const options = { minimumFailureCount: 1, openDuration: 1, samplingWindow: 100 };
    const circuits = pair(options);
    circuits.admit('stale before', 0);
    circuits.admit('stale after', 0);
    circuits.run(0, CircuitOutcome.Success); // view 0 knows the guard's free value
    circuits.run(1, CircuitOutcome.Failure); // trips
    circuits.complete('stale before', CircuitOutcome.Success); // open: changes nothing
    circuits.agree(0);
    circuits.clock.time = 1;
    circuits.run(1, CircuitOutcome.Success); // the probe: closed again, a new generation
    circuits.run(0, CircuitOutcome.Success); // view 0 knows the guard's free value again
    circuits.complete('stale after', CircuitOutcome.Success); // closed, but not its generation
    circuits.agree(2);
  });
});
