// Timing loop shared by the suites: warm-up, then interleaved rounds per contender, median rate.
// The same schedule drives contenders in this process (`measureInterleaved`) and contenders in
// worker processes (`measureRounds`, used by bench/isolation.ts).
import type { MeasureOptions, Round } from './suite.js';

/** One thing being timed. `pass()` does a fixed amount of work (a whole corpus, a batch of commands). */
export interface Contender {
  name: string;
  pass(): void;
}

/** A contender timed a round at a time, possibly in another process. */
export interface RoundRunner {
  name: string;
  runFor(durationMs: number): Promise<Round>;
}

/** The last value a contender produced, kept so the optimiser cannot drop the work that made it. */
export const blackhole: { value: unknown } = { value: undefined };

export interface Measurement {
  name: string;
  /** Median over the rounds of passes per second. */
  passesPerSecond: number;
  /** Every pass run, warm-up included, for checking the contender's work afterwards. */
  passes: number;
  /** Median over the rounds of CPU milliseconds per pass, when the rounds reported CPU time. */
  cpuMsPerPass?: number;
}

/** Full runs keep the decode suite under a minute; `--quick` only proves the wiring works. */
export function measureOptions(quick: boolean): MeasureOptions {
  return quick ? { warmupMs: 20, rounds: 3, roundMs: 20 } : { warmupMs: 300, rounds: 9, roundMs: 150 };
}

/** For passes of a network round trip or more (the client suites): longer rounds. */
export function roundTripMeasureOptions(quick: boolean): MeasureOptions {
  return quick ? { warmupMs: 20, rounds: 3, roundMs: 20 } : { warmupMs: 500, rounds: 9, roundMs: 250 };
}

/**
 * The order of the timed runs: every contender once per round, the starting contender rotating
 * so none always runs right after a collection of another's garbage. Round-robin rather than one
 * contender after another, so that on a shared, noisy machine a burst of load hits every
 * contender's rounds alike instead of spoiling one contender's figure.
 */
export function roundOrder(contenders: number, rounds: number): number[] {
  const order: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (let step = 0; step < contenders; step++) order.push((round + step) % contenders);
  }
  return order;
}

/** Times in-process contenders: warm-up of each, then `roundOrder`; the median rate is kept. */
export function measureInterleaved(contenders: readonly Contender[], options: MeasureOptions): Measurement[] {
  const runs = contenders.map((contender) => syncPasses(() => contender.pass()));
  const passes = runs.map((runFor) => runFor(options.warmupMs).passes);
  const rates: number[][] = contenders.map(() => []);
  for (const index of roundOrder(contenders.length, options.rounds)) {
    const round = runs[index]!(options.roundMs);
    passes[index]! += round.passes;
    rates[index]!.push(rate(round));
  }
  return contenders.map((contender, index) => ({
    name: contender.name,
    passesPerSecond: median(rates[index]!),
    passes: passes[index]!,
  }));
}

/**
 * As `measureInterleaved`, for runners that time themselves elsewhere: one runner runs at a time,
 * so processes waiting for their turn take no CPU from the one being timed.
 */
export async function measureRounds(
  runners: readonly RoundRunner[],
  options: MeasureOptions,
): Promise<Measurement[]> {
  const passes: number[] = [];
  for (const runner of runners) passes.push((await runner.runFor(options.warmupMs)).passes);
  const rates: number[][] = runners.map(() => []);
  const cpu: number[][] = runners.map(() => []);
  for (const index of roundOrder(runners.length, options.rounds)) {
    const round = await runners[index]!.runFor(options.roundMs);
    passes[index]! += round.passes;
    rates[index]!.push(rate(round));
    if (round.cpuMs !== undefined) cpu[index]!.push(round.cpuMs / round.passes);
  }
  return runners.map((runner, index) => {
    const measurement: Measurement = {
      name: runner.name,
      passesPerSecond: median(rates[index]!),
      passes: passes[index]!,
    };
    if (cpu[index]!.length === options.rounds) measurement.cpuMsPerPass = median(cpu[index]!);
    return measurement;
  });
}

/** `PreparedContender.runFor` for a synchronous pass: a tight loop, the clock read once a pass. */
export function syncPasses(pass: () => void): (durationMs: number) => Round {
  return (durationMs) => {
    const start = performance.now();
    let passes = 0;
    let elapsedMs = 0;
    do {
      pass();
      passes++;
      elapsedMs = performance.now() - start;
    } while (elapsedMs < durationMs);
    return { passes, elapsedMs };
  };
}

/** `PreparedContender.runFor` for a pass that completes asynchronously (a batch of commands). */
export function asyncPasses(pass: () => Promise<unknown>): (durationMs: number) => Promise<Round> {
  return async (durationMs) => {
    const start = performance.now();
    let passes = 0;
    let elapsedMs = 0;
    do {
      await pass();
      passes++;
      elapsedMs = performance.now() - start;
    } while (elapsedMs < durationMs);
    return { passes, elapsedMs };
  };
}

function rate(round: Round): number {
  return (round.passes * 1000) / round.elapsedMs;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
