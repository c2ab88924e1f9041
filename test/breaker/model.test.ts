// Model-based test of the breaker (BREAKER.md "Testing it"): fast-check command sequences run
// against a naive reference model (an outcome log filtered by age and count, an exact rational
// threshold), checking every invariant after every command. Replay a failure with SEED=… FC_PATH=….
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type CircuitState } from '../../src/breaker/index.js';
import { BreakerModel } from './model.js';
import {
  AcquireCommand,
  AdvanceCommand,
  BoundaryBurstCommand,
  BurstCommand,
  CheckCommand,
  CompleteCommand,
  coverage,
  type ModelOptions,
  type RealSystem,
} from './model-commands.js';
import { FakeClock, propertySettings, seededRandom } from './support.js';

/** 5,000 in CI; `BREAKER_MODEL_RUNS=100000` for a deeper local search. */
const RUNS = Number(process.env.BREAKER_MODEL_RUNS ?? 5_000);

const modelOptions: fc.Arbitrary<ModelOptions> = fc
  .record({
    maximumSampleCount: fc.integer({ min: 1, max: 12 }),
    minimumFailureCount: fc.integer({ min: 1, max: 4 }),
    denominator: fc.constantFrom(2, 3, 4, 10, 100, 1000),
    numerator: fc.integer({ min: 1, max: 1000 }),
    samplingWindow: fc.integer({ min: 1, max: 40 }),
    openDuration: fc.integer({ min: 1, max: 40 }),
    halfOpenProbeCount: fc.integer({ min: 1, max: 3 }),
    openDurationMultiplier: fc.constantFrom(1, 1.5, 2),
    maxOpenFactor: fc.constantFrom(1, 2.5, 4),
    openDurationJitter: fc.constantFrom(0, 0, 0.3, 1),
    seed: fc.integer(),
  })
  .map((o) => ({
    ...o,
    numerator: ((o.numerator - 1) % o.denominator) + 1,
    minimumFailureCount: Math.min(o.minimumFailureCount, o.maximumSampleCount),
  }));

const commands = fc.commands(
  [
    fc.constantFrom('object' as const, 'ticket' as const).map((api) => new AcquireCommand(api)),
    fc
      .tuple(fc.nat(), fc.constantFrom('success' as const, 'failure' as const, 'none' as const))
      .map(([pick, outcome]) => new CompleteCommand(pick, outcome)),
    fc
      .oneof(
        { weight: 3, arbitrary: fc.constantFrom(0, 1) },
        { weight: 4, arbitrary: fc.constantFrom('openDuration' as const, 'samplingWindow' as const) },
        { weight: 1, arbitrary: fc.integer({ min: -5, max: 120 }) },
        { weight: 1, arbitrary: fc.constantFrom(-1, -30) },
      )
      .chain((base) =>
        typeof base === 'number'
          ? fc.constant(new AdvanceCommand(base, 0))
          : fc.integer({ min: -1, max: 1 }).map((delta) => new AdvanceCommand(base, delta)),
      ),
    fc
      .tuple(fc.integer({ min: 1, max: 8 }), fc.boolean())
      .map(([count, failed]) => new BurstCommand(count, failed)),
    fc.constantFrom(-1, 0).map((offset) => new BoundaryBurstCommand(offset)),
    fc.constant(new CheckCommand()),
  ],
  { maxCommands: 40, size: 'max' },
);

const EDGES = new Set(['closed->open', 'open->half_open', 'half_open->open', 'half_open->closed']);

describe('CircuitBreaker against the reference model', () => {
  it(
    `agrees with the model after every command (${RUNS} runs)`,
    () => {
      fc.assert(
        fc.property(modelOptions, commands, (options, sequence) => {
          const clock = new FakeClock(0);
          const breaker = new CircuitBreaker(
            {
              failureRateThreshold: options.numerator / options.denominator,
              minimumFailureCount: options.minimumFailureCount,
              samplingWindow: options.samplingWindow,
              maximumSampleCount: options.maximumSampleCount,
              openDuration: options.openDuration,
              halfOpenProbeCount: options.halfOpenProbeCount,
              openDurationMultiplier: options.openDurationMultiplier,
              maxOpenDuration: options.openDuration * options.maxOpenFactor,
              openDurationJitter: options.openDurationJitter,
            },
            { now: () => clock.now(), random: seededRandom(options.seed) },
          );
          const transitions: string[] = [];
          breaker.onTransition((from: CircuitState, to: CircuitState) => {
            const edge = `${from}->${to}`;
            expect(EDGES.has(edge)).toBe(true);
            expect(breaker.state).toBe(to);
            transitions.push(edge);
          });
          const real: RealSystem = { breaker, clock, tokens: [], transitions };
          fc.modelRun(() => ({ model: new BreakerModel(options), real }), sequence);
        }),
        propertySettings(RUNS),
      );
      // The runs must actually reach every situation the invariants are about.
      for (const [situation, count] of Object.entries(coverage)) {
        expect({ situation, reached: count >= 100 }).toEqual({ situation, reached: true });
      }
    },
    Math.max(30_000, RUNS * 5),
  ); // about 1 ms a run on a loaded 2-core machine; deep runs need longer
});
