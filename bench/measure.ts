// Timing loop shared by the suites: warm-up, then interleaved rounds per contender, median rate.

/** One thing being timed. `pass()` does a fixed amount of work (a whole corpus, a batch of commands). */
export interface Contender {
  name: string;
  pass(): void;
}

/** The last value a contender produced, kept so the optimiser cannot drop the work that made it. */
export const blackhole: { value: unknown } = { value: undefined };

export interface MeasureOptions {
  /** Untimed running per contender before the first round, so every function is optimised. */
  warmupMs: number;
  /** Timed rounds per contender; the median is reported. Odd counts give a true median. */
  rounds: number;
  /** Length of one round; a round always runs at least one pass. */
  roundMs: number;
}

export interface Measurement {
  name: string;
  /** Median over the rounds of passes per second. */
  passesPerSecond: number;
  /** Every pass run, warm-up included, for checking the contender's work afterwards. */
  passes: number;
}

/** Full runs keep the decode suite under a minute; `--quick` only proves the wiring works. */
export function measureOptions(quick: boolean): MeasureOptions {
  return quick ? { warmupMs: 20, rounds: 3, roundMs: 20 } : { warmupMs: 300, rounds: 9, roundMs: 150 };
}

/**
 * Times the contenders round-robin rather than one after another: on a shared, noisy machine a
 * burst of load then hits every contender's rounds alike instead of spoiling one contender's
 * figure. The starting contender rotates so none always runs right after a collection of another's
 * garbage.
 */
export function measureInterleaved(contenders: readonly Contender[], options: MeasureOptions): Measurement[] {
  const passes = contenders.map((contender) => runFor(contender, options.warmupMs).passes);
  const rates: number[][] = contenders.map(() => []);
  for (let round = 0; round < options.rounds; round++) {
    for (let step = 0; step < contenders.length; step++) {
      const index = (round + step) % contenders.length;
      const outcome = runFor(contenders[index]!, options.roundMs);
      passes[index]! += outcome.passes;
      rates[index]!.push((outcome.passes * 1000) / outcome.elapsedMs);
    }
  }
  return contenders.map((contender, index) => ({
    name: contender.name,
    passesPerSecond: median(rates[index]!),
    passes: passes[index]!,
  }));
}

function runFor(contender: Contender, durationMs: number): { passes: number; elapsedMs: number } {
  const start = performance.now();
  let passes = 0;
  let elapsedMs = 0;
  do {
    contender.pass();
    passes++;
    elapsedMs = performance.now() - start;
  } while (elapsedMs < durationMs);
  return { passes, elapsedMs };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
