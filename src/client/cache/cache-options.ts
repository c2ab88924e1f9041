// `clientSideCache: { maxEntries, maxBytes?, ttl? }` (API.md "Client-side cache"): validated once,
// each bad value a RespireConfigurationError naming the option path and its range.
import { RespireConfigurationError } from '../../errors.js';
import { rejectUnknownOptions } from '../../util/unknown-options.js';
import { MAX_TIMEOUT_MS } from '../prepare-command.js';

/** `clientSideCache` option: the bounds of the local cache of read replies (API.md "Client-side cache"). */
export interface RespireClientSideCacheOptions {
  /** Most entries kept; the least recently used goes first. Required, an integer ≥ 1. */
  maxEntries: number;
  /** Most bytes kept, as estimated per entry (README "Client-side cache"). Default no bound. */
  maxBytes?: number;
  /** Longest an entry is served, ms, even with no invalidation. Default none (0). */
  ttl?: number;
}

export interface ResolvedCacheOptions {
  readonly maxEntries: number;
  /** Infinity when not set. */
  readonly maxBytes: number;
  /** 0 = entries do not expire by age. */
  readonly ttlMs: number;
}

const NAMES = Object.keys({ maxEntries: true, maxBytes: true, ttl: true } satisfies Record<
  keyof RespireClientSideCacheOptions,
  true
>);
const MAX_ENTRIES = 2 ** 24;
const MAX_BYTES = Number.MAX_SAFE_INTEGER;

/** Undefined or null: no cache. @throws RespireConfigurationError naming the option. */
export function resolveCacheOptions(value: unknown): ResolvedCacheOptions | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new RespireConfigurationError('clientSideCache', value, '{ maxEntries, maxBytes?, ttl? }');
  }
  rejectUnknownOptions(value, NAMES, 'clientSideCache.');
  const given = value as Record<string, unknown>;
  return {
    maxEntries: bounded(given.maxEntries, 'maxEntries', 1, MAX_ENTRIES, undefined),
    maxBytes: bounded(given.maxBytes, 'maxBytes', 1, MAX_BYTES, Number.POSITIVE_INFINITY),
    ttlMs: bounded(given.ttl, 'ttl', 0, MAX_TIMEOUT_MS, 0),
  };
}

function bounded(
  value: unknown,
  name: string,
  min: number,
  max: number,
  fallback: number | undefined,
): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RespireConfigurationError(
      `clientSideCache.${name}`,
      value,
      `an integer from ${min} through ${max}${fallback === undefined ? ' (required)' : ''}`,
    );
  }
  return value;
}
