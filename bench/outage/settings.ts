// The outage scenario's knobs (issue 6, "The scenario"): workload, phase lengths, the breaker's
// scaled windows and the contenders, with the defaults `npm run bench` uses and the shorter ones
// of `--quick`.
import path from 'node:path';
import type { RespireCircuitBreakerOptions } from '../../src/breaker/options.js';
import type { RunSettings } from '../run.js';
import type { BenchContext } from '../suite.js';

/** Which client a contender's process loads (bench/outage/drivers/). */
export type DriverName = 'respire' | 'ioredis' | 'node-redis';

export interface ContenderSpec {
  /** The `client` of its result rows. */
  name: string;
  driver: DriverName;
  /** Respire only: the circuit breaker's options, or null for none. */
  circuitBreaker: RespireCircuitBreakerOptions | null;
}

export interface OutageSettings {
  /** Concurrent producers; each awaits its call before it takes the next one. */
  producers: number;
  /** Calls offered per second in all, alternately PUBLISH and XADD. */
  callsPerSecond: number;
  /**
   * Channels and streams the calls take turns over: 1, one of each; more (a cluster's run, which
   * publishes with SPUBLISH) spreads the calls over that many keys, and so over every slot.
   */
  keys: number;
  /** Traffic before the blip: the clients warm up and the baseline rate is measured. */
  warmupMs: number;
  /** How long the proxy black-holes Redis. */
  blipMs: number;
  /** Traffic after the heal, before the run stops and counts what is still pending. */
  afterMs: number;
  /** Width of the chart's buckets. */
  bucketMs: number;
  /** Period of the unrelated CPU task: one fixed piece of work per period. */
  taskPeriodMs: number;
  contenders: readonly ContenderSpec[];
}

/**
 * Seed 000's defaults (API.md) with the two windows scaled to a blip of seconds rather than
 * minutes: the circuit reopens for probes after 1 s, and outcomes older than 5 s stop counting.
 */
export const SCALED_BREAKER = Object.freeze({
  failureRateThreshold: 0.5,
  minimumFailureCount: 5,
  samplingWindow: 5_000,
  maximumSampleCount: 1024,
  openDuration: 1_000,
  halfOpenProbeCount: 1,
} satisfies RespireCircuitBreakerOptions);

export const CONTENDERS: readonly ContenderSpec[] = [
  { name: 'respire + breaker', driver: 'respire', circuitBreaker: SCALED_BREAKER },
  { name: 'respire, no breaker', driver: 'respire', circuitBreaker: null },
  { name: 'ioredis', driver: 'ioredis', circuitBreaker: null },
  { name: 'node-redis', driver: 'node-redis', circuitBreaker: null },
];

/** The blip without `--blip`: 10 s, or 2 s with `--quick`, whose runs only check the wiring. */
export const DEFAULT_BLIP_SECONDS = 10;
export const QUICK_BLIP_SECONDS = 2;

/** `npm run bench` (quick: the runner's smoke runs and the scenario's own test). */
export function outageSettings(
  quick: boolean,
  blipSeconds = quick ? QUICK_BLIP_SECONDS : DEFAULT_BLIP_SECONDS,
): OutageSettings {
  if (!(Number.isFinite(blipSeconds) && blipSeconds > 0)) {
    throw new RangeError(`the blip must last a positive number of seconds, got ${blipSeconds}`);
  }
  return {
    producers: quick ? 16 : 64,
    callsPerSecond: quick ? 2_000 : 5_000,
    keys: 1,
    warmupMs: quick ? 1_000 : 5_000,
    blipMs: Math.round(blipSeconds * 1000),
    afterMs: quick ? 1_000 : 5_000,
    bucketMs: 250,
    taskPeriodMs: 10,
    contenders: CONTENDERS,
  };
}

/** One line that says what was run, for the terminal and the chart's subtitle. */
export function describeSettings(settings: OutageSettings): string {
  const breaker = SCALED_BREAKER;
  return (
    `${settings.producers} producers, ${settings.callsPerSecond.toLocaleString('en-US')} calls/s ` +
    `(${settings.keys === 1 ? 'PUBLISH and XADD' : `SPUBLISH and XADD over ${settings.keys.toLocaleString('en-US')} keys`}), blip ${seconds(settings.blipMs)} after ${seconds(settings.warmupMs)} of warm-up; ` +
    `breaker: seed defaults with openDuration ${breaker.openDuration} ms, ` +
    `samplingWindow ${breaker.samplingWindow} ms`
  );
}

/** `ms` as seconds for a reader: `2 s`, `0.25 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

/** The runner's `--blip` and results directory, when it passes them (bench/run.ts RunSettings). */
export function runSettings(context: BenchContext): { blipSeconds: number | undefined; resultsDir: string } {
  const given = context as BenchContext & Partial<RunSettings>;
  return {
    blipSeconds: given.blipSeconds,
    resultsDir: given.resultsDir ?? path.join(process.cwd(), 'bench', 'results'),
  };
}
