// Respire's metrics (seed 000 "Circuit metrics", API.md "Metrics"): the `meter` and `metricGroups`
// options, and ClientTelemetry, the one object the client's send paths tell what happened. With no
// meter every method returns at once and no instrument exists; with one, an instrument is created
// on its first measurement, and only when its group is selected.
import type { CircuitState } from '../breaker/index.js';
import { RespireConfigurationError, type RespireEndpoint } from '../errors.js';
import { publishCircuitTransition } from './diagnostics.js';
import { EndpointTagCache, errorTypeOf, type RespireMetricAttributes } from './metrics-tags.js';

export type { RespireMetricAttributes } from './metrics-tags.js';

/** How an instrument is described; OpenTelemetry's `MetricOptions` has these fields. */
export interface RespireInstrumentOptions {
  description?: string;
  unit?: string;
}

/** The part of an OpenTelemetry `Counter` Respire uses. */
export interface RespireCounter {
  add(value: number, attributes?: RespireMetricAttributes): void;
}

/**
 * The part of an OpenTelemetry `Meter` Respire uses: a structural type, so an `@opentelemetry/api`
 * Meter (`metrics.getMeter('respire')`) fits without Respire depending on that package.
 */
export interface RespireMeter {
  createCounter(name: string, options?: RespireInstrumentOptions): RespireCounter;
}

/**
 * What a configured meter reports (`metricGroups`). A frozen object of string values, usable as an
 * enum: `metricGroups: [RespireMetricGroups.Resiliency]`.
 */
export const RespireMetricGroups = Object.freeze({
  /** `respire.circuit.transitions` and `respire.circuit.rejections`. */
  Resiliency: 'resiliency',
  /** `redis.client.errors`: each error a caller receives, by `error.type`. */
  Commands: 'commands',
  /** `respire.command.retries`: each retry attempt of the `retry` option. */
  Retries: 'retries',
  /** `respire.cache.*`: client-side cache hits, misses, evictions and invalidations. */
  Cache: 'cache',
} as const);

export type RespireMetricGroup = (typeof RespireMetricGroups)[keyof typeof RespireMetricGroups];

const ALL_GROUPS: readonly RespireMetricGroup[] = Object.values(RespireMetricGroups);

/** The instruments, by group. Names, units and descriptions are part of the public contract. */
export const Instruments = {
  transitions: {
    name: 'respire.circuit.transitions',
    unit: '{transition}',
    description: 'Circuit state changes of an endpoint, by the states left and entered.',
  },
  rejections: {
    name: 'respire.circuit.rejections',
    unit: '{operation}',
    description:
      'Operations an endpoint circuit rejected without sending, while open or with every probe slot taken.',
  },
  errors: {
    name: 'redis.client.errors',
    unit: '{error}',
    description: 'Errors callers received, by error.type: the Redis error code or the error class.',
  },
  retries: {
    name: 'respire.command.retries',
    unit: '{retry}',
    description: 'Retry attempts of commands, each counted when it is issued.',
  },
  cacheHits: {
    name: 'respire.cache.hits',
    unit: '{hit}',
    description: 'Reads the client-side cache answered without sending them.',
  },
  cacheMisses: {
    name: 'respire.cache.misses',
    unit: '{miss}',
    description: 'Cacheable reads the client-side cache could not answer, sent to Redis.',
  },
  cacheEvictions: {
    name: 'respire.cache.evictions',
    unit: '{entry}',
    description: 'Client-side cache entries dropped by maxEntries, maxBytes or ttl.',
  },
  cacheInvalidations: {
    name: 'respire.cache.invalidations',
    unit: '{entry}',
    description:
      'Client-side cache entries dropped because Redis or the client changed their key, or their tracking connection was lost.',
  },
} as const;

/** `meter` and `metricGroups` as validated by `resolveMetricOptions`. */
export interface ResolvedMetricOptions {
  meter: RespireMeter | null;
  /** The groups reported; empty without a meter. */
  metricGroups: ReadonlySet<RespireMetricGroup>;
}

/**
 * Validates `meter` (an object with `createCounter`, or absent/null) and `metricGroups` (an array
 * of RespireMetricGroups values; default: every group). Groups without a meter report nothing.
 * @throws RespireConfigurationError naming the option.
 */
export function resolveMetricOptions(meter: unknown, metricGroups: unknown): ResolvedMetricOptions {
  if (
    meter !== undefined &&
    meter !== null &&
    (typeof meter !== 'object' || typeof (meter as RespireMeter).createCounter !== 'function')
  ) {
    throw new RespireConfigurationError(
      'meter',
      meter,
      'an OpenTelemetry Meter (an object with createCounter)',
    );
  }
  const allowed = `an array of RespireMetricGroups values (${ALL_GROUPS.map((g) => `'${g}'`).join(', ')})`;
  if (metricGroups !== undefined && !Array.isArray(metricGroups)) {
    throw new RespireConfigurationError('metricGroups', metricGroups, allowed);
  }
  const groups = (metricGroups as unknown[] | undefined) ?? ALL_GROUPS;
  groups.forEach((group, index) => {
    if (!ALL_GROUPS.includes(group as RespireMetricGroup)) {
      throw new RespireConfigurationError(`metricGroups[${index}]`, group, allowed);
    }
  });
  if (meter === undefined || meter === null) return { meter: null, metricGroups: new Set() };
  return { meter: meter as RespireMeter, metricGroups: new Set(groups as RespireMetricGroup[]) };
}

/**
 * What the client's send paths report, turned into measurements (and the circuit's diagnostics
 * channel). Every method is cheap to call when nothing is configured; hot paths may also test
 * `circuitMetrics`, `errorMetrics` or `retryMetrics` first. Recording allocates nothing: tags are
 * built once per endpoint. A meter that throws cannot break a command: its error is reported once
 * as a process warning and the measurement is dropped.
 */
export class ClientTelemetry {
  /** Reports nothing; `circuitTransition` still publishes its diagnostics channel. */
  static readonly disabled = new ClientTelemetry({ meter: null, metricGroups: new Set() });

  /** `respire.circuit.*` are recorded. */
  readonly circuitMetrics: boolean;
  /** `redis.client.errors` is recorded. */
  readonly errorMetrics: boolean;
  /** `respire.command.retries` is recorded. */
  readonly retryMetrics: boolean;
  /** `respire.cache.*` are recorded. */
  readonly cacheMetrics: boolean;
  private readonly meter: RespireMeter | null;
  private readonly tags = new EndpointTagCache();
  private transitions: RespireCounter | undefined;
  private rejections: RespireCounter | undefined;
  private errors: RespireCounter | undefined;
  private retries: RespireCounter | undefined;
  private cacheCounters: readonly RespireCounter[] | undefined;
  private warned = false;

  constructor(options: ResolvedMetricOptions) {
    this.meter = options.meter;
    const has = (group: RespireMetricGroup) => options.meter !== null && options.metricGroups.has(group);
    this.circuitMetrics = has(RespireMetricGroups.Resiliency);
    this.errorMetrics = has(RespireMetricGroups.Commands);
    this.retryMetrics = has(RespireMetricGroups.Retries);
    this.cacheMetrics = has(RespireMetricGroups.Cache);
  }

  /**
   * A circuit changed state (never called for a circuit created closed, nor for an evicted one).
   * Call on every transition: it also feeds the `respire:circuit:transition` channel.
   */
  circuitTransition(endpoint: RespireEndpoint, from: CircuitState, to: CircuitState): void {
    publishCircuitTransition(endpoint, from, to);
    if (!this.circuitMetrics) return;
    this.transitions ??= this.create(Instruments.transitions);
    this.add(this.transitions, this.tags.of(endpoint).transition(from, to));
  }

  /** An admission was rejected: once per rejected batch entry, once per transaction, once per WATCH. */
  circuitRejection(endpoint: RespireEndpoint): void {
    if (!this.circuitMetrics) return;
    this.rejections ??= this.create(Instruments.rejections);
    this.add(this.rejections, this.tags.of(endpoint).base);
  }

  /** A caller received `error` from a command sent, or meant to be sent, to `endpoint`. */
  commandError(endpoint: RespireEndpoint, error: unknown): void {
    if (!this.errorMetrics) return;
    this.errors ??= this.create(Instruments.errors);
    this.add(this.errors, this.tags.of(endpoint).error(errorTypeOf(error)));
  }

  /** A retry attempt (the second or a later one) of a command to `endpoint` is about to be issued. */
  commandRetry(endpoint: RespireEndpoint): void {
    if (!this.retryMetrics) return;
    this.retries ??= this.create(Instruments.retries);
    this.add(this.retries, this.tags.of(endpoint).base);
  }

  /**
   * Client-side cache activity since the last call (cache/cache-meter.ts reports in batches, so a
   * hit costs an increment, not a meter call): hits, misses, evictions, invalidations.
   */
  cacheActivity(endpoint: RespireEndpoint, counts: readonly [number, number, number, number]): void {
    if (!this.cacheMetrics) return;
    this.cacheCounters ??= [
      Instruments.cacheHits,
      Instruments.cacheMisses,
      Instruments.cacheEvictions,
      Instruments.cacheInvalidations,
    ].map((instrument) => this.create(instrument));
    const tags = this.tags.of(endpoint).base;
    counts.forEach((count, i) => {
      if (count > 0) this.add(this.cacheCounters![i]!, tags, count);
    });
  }

  private create(instrument: { name: string; unit: string; description: string }): RespireCounter {
    const options = { unit: instrument.unit, description: instrument.description };
    try {
      const counter = this.meter!.createCounter(instrument.name, options);
      if (counter !== null && typeof counter === 'object' && typeof counter.add === 'function')
        return counter;
      throw new TypeError(`createCounter('${instrument.name}') returned no counter`);
    } catch (error) {
      this.warn(error);
      return DROPPED;
    }
  }

  private add(counter: RespireCounter, tags: RespireMetricAttributes, value = 1): void {
    try {
      counter.add(value, tags);
    } catch (error) {
      this.warn(error);
    }
  }

  private warn(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    process.emitWarning(
      `the meter given to Respire threw; measurements it refuses are dropped: ${String(error)}`,
      { code: 'RESPIRE_METER_ERROR' },
    );
  }
}

/** Stands in for an instrument the meter failed to create. */
const DROPPED: RespireCounter = { add() {} };
