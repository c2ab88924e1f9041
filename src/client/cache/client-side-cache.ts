// The client-side cache (issue 13, API.md "Client-side cache", PROTOCOL.md §4): replies of
// cacheable reads per key, kept until the server invalidates the key, the client writes it, the
// bounds evict it (least recently used, by entries and bytes, optional ttl), or the tracking
// connection whose invalidations cover it is lost. A hit never reaches a router, so no circuit
// sees it (seed 000: a cache hit is never checked and records nothing).
import { isUtf8 } from 'node:buffer';
import { numberText } from '../../resp/argument-writers.js';
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import type { Command, SettleObserver } from '../../transport/command.js';
import type { Clock } from '../../util/clock.js';
import { argumentText } from '../command-table.js';
import { CacheEntry, type Coverage, KeyHolder, RecencyList } from './cache-entries.js';
import type { ResolvedCacheOptions } from './cache-options.js';
import { ENTRY_OVERHEAD_BYTES, replyBytes, storedCopy } from './cached-values.js';
import { CommandRule, commandRule, writtenKeys } from './command-rules.js';

/** Counts since the client connected, and what the cache holds now. */
export interface ClientSideCacheStats {
  /** Cacheable reads answered from the cache, sending nothing. */
  hits: number;
  /** Cacheable reads the cache could not answer (no entry, or one past its `ttl`), sent to Redis. */
  misses: number;
  /** Entries dropped by `maxEntries`, `maxBytes` or `ttl`. */
  evictions: number;
  /** Entries dropped by an invalidation: the server's, the client's own write, a lost tracking connection. */
  invalidations: number;
  /** Entries held now. */
  entries: number;
  /** Estimated heap bytes of the entries (README "Client-side cache"). */
  bytes: number;
}

/** What a cache miss being sent carries (cached-read.ts): its placeholder in the cache. */
export interface PendingRead {
  readonly holder: KeyHolder;
  readonly signature: string;
  /** The cache's invalidation sequence number when the read began. */
  readonly sequence: number;
  /** The tracking connection of the node it was sent to, when that was ready. */
  readonly coverage: Coverage | undefined;
  readonly generation: number;
}

export class ClientSideCache {
  hits = 0;
  misses = 0;
  evictions = 0;
  invalidations = 0;
  private readonly holders = new Map<string, KeyHolder>();
  private readonly recency = new RecencyList();
  private entryCount = 0;
  private byteCount = 0;
  /** Bumped by every invalidation: a read stores its reply only if its key was not invalidated since it began. */
  private sequence = 0;
  /** Drops a write's keys again as it settles (`sending`). */
  private readonly writeSettled: SettleObserver = new WriteSettled(this, undefined);

  constructor(
    private readonly options: ResolvedCacheOptions,
    private readonly clock: Clock,
  ) {}

  get stats(): ClientSideCacheStats {
    const { hits, misses, evictions, invalidations } = this;
    return { hits, misses, evictions, invalidations, entries: this.entryCount, bytes: this.byteCount };
  }

  /**
   * The hit path: the entry answering `args`, null for a cacheable read with no entry (a miss),
   * undefined for a command the cache does not answer.
   */
  lookup(args: readonly RespArgument[]): CacheEntry | null | undefined {
    if (args.length < 2 || commandRule(args) !== CommandRule.Cacheable) return undefined;
    const key = cacheKey(args[1]!);
    if (key === undefined) return undefined;
    const entry = this.holders.get(key)?.find(signatureOf(args));
    if (entry === undefined) {
      this.misses++;
      return null;
    }
    if (entry.expiresAt !== Number.POSITIVE_INFINITY && this.clock.now() >= entry.expiresAt) {
      this.evictions++;
      this.remove(entry);
      this.misses++;
      return null;
    }
    this.recency.touch(entry);
    this.hits++;
    return entry;
  }

  /**
   * A miss about to be sent: its key's placeholder, so that an invalidation arriving before its
   * reply keeps that reply out (PROTOCOL.md §4 "Race"). Undefined when its key cannot be cached
   * (not valid UTF-8, which invalidations could not name).
   */
  begin(
    args: readonly RespArgument[],
  ): { holder: KeyHolder; signature: string; sequence: number } | undefined {
    const key = cacheKey(args[1]!);
    if (key === undefined || Buffer.from(key).toString() !== key) return undefined;
    let holder = this.holders.get(key);
    if (holder === undefined) {
      holder = new KeyHolder(key);
      this.holders.set(key, holder);
    }
    holder.pending++;
    return { holder, signature: signatureOf(args), sequence: this.sequence };
  }

  /** A miss's reply (or error reply) arrived: stored if nothing invalidated it meanwhile. */
  complete(read: PendingRead, value: RespValue): void {
    const { holder, coverage } = read;
    holder.pending--;
    const storable =
      !(value instanceof Error) &&
      coverage !== undefined &&
      coverage.ready &&
      coverage.generation === read.generation &&
      this.holders.get(holder.key) === holder &&
      holder.invalidatedAt <= read.sequence;
    // A copy: the caller gets `value` itself (cached-values.ts `storedCopy`).
    if (storable) this.store(holder, read.signature, storedCopy(value), coverage);
    else this.forgetIfEmpty(holder);
  }

  /** A miss failed without a reply: its placeholder goes. */
  abandon(read: PendingRead): void {
    read.holder.pending--;
    this.forgetIfEmpty(read.holder);
  }

  /**
   * Read your writes: a command that may write keys drops them before it is even sent, and again
   * when it settles, before its caller hears. It may run on the server after a read sent later
   * (a blocking write waiting on its dedicated connection, a WATCH session's, a redirected one),
   * and that read's old value must not outlive it: the tracking connection's invalidation is on
   * another socket, so nothing orders it before the write's reply.
   */
  sending(command: Command<unknown>): void {
    if (commandRule(command.args) !== CommandRule.WritesKeys) return;
    this.written(command.args);
    // A plain call has no observer: the cache's own one serves, so a write allocates nothing.
    const next = command.observer;
    command.observer = next === undefined ? this.writeSettled : new WriteSettled(this, next);
  }

  /** Drops every key `args` (a command that may write) may change. */
  written(args: readonly RespArgument[]): void {
    if (this.holders.size === 0) return;
    const keys = writtenKeys(args);
    if (keys === undefined) {
      this.invalidateAll();
      return;
    }
    for (const index of keys) {
      const key = cacheKey(args[index]!);
      if (key !== undefined) this.invalidate(key);
    }
  }

  /** The server says `key` changed (or the client wrote it). */
  invalidate(key: string): void {
    const holder = this.holders.get(key);
    if (holder === undefined) return;
    holder.invalidatedAt = ++this.sequence;
    for (const entry of holder.entries()) {
      this.invalidations++;
      this.remove(entry);
    }
  }

  /** A `null` invalidation (FLUSHALL, FLUSHDB), or a write whose keys are not known: everything goes. */
  invalidateAll(): void {
    this.invalidations += this.entryCount;
    this.sequence++;
    // Reads in flight find their holder gone and do not store.
    this.holders.clear();
    this.recency.clear();
    this.entryCount = 0;
    this.byteCount = 0;
  }

  /** A tracking connection was lost: the entries it covered go (Redis will not invalidate them). */
  dropCovered(coverage: Coverage): void {
    let entry = this.recency.oldest;
    while (entry !== undefined) {
      const next = entry.next;
      if (entry.coverage === coverage) {
        this.invalidations++;
        this.remove(entry);
      }
      entry = next;
    }
  }

  private store(holder: KeyHolder, signature: string, value: RespValue, coverage: Coverage): void {
    const bytes = ENTRY_OVERHEAD_BYTES + 2 * holder.key.length + signature.length + replyBytes(value);
    const existing = holder.find(signature);
    if (bytes > this.options.maxBytes) {
      // It cannot fit: storing it would evict every other entry first, then itself.
      this.evictions++;
      if (existing === undefined) this.forgetIfEmpty(holder);
      else this.remove(existing);
      return;
    }
    const ttlMs = this.options.ttlMs;
    const expiresAt = ttlMs === 0 ? Number.POSITIVE_INFINITY : this.clock.now() + ttlMs;
    if (existing === undefined) {
      const entry = new CacheEntry(holder, signature, value, bytes, expiresAt, coverage);
      holder.add(entry);
      this.recency.append(entry);
      this.entryCount++;
    } else {
      this.byteCount -= existing.bytes;
      existing.value = value;
      existing.bytes = bytes;
      existing.expiresAt = expiresAt;
      existing.coverage = coverage;
      this.recency.touch(existing);
    }
    this.byteCount += bytes;
    const { maxEntries, maxBytes } = this.options;
    while (this.entryCount > maxEntries || this.byteCount > maxBytes) {
      this.evictions++;
      this.remove(this.recency.oldest!);
    }
  }

  private remove(entry: CacheEntry): void {
    const holder = entry.holder;
    holder.remove(entry);
    this.recency.unlink(entry);
    this.entryCount--;
    this.byteCount -= entry.bytes;
    this.forgetIfEmpty(holder);
  }

  private forgetIfEmpty(holder: KeyHolder): void {
    if (holder.empty && this.holders.get(holder.key) === holder) this.holders.delete(holder.key);
  }
}

/** Drops a write's keys again as it settles, then tells the observer it replaced (a batch's). */
class WriteSettled implements SettleObserver {
  constructor(
    private readonly cache: ClientSideCache,
    private readonly next: SettleObserver | undefined,
  ) {}

  commandSettled(command: Command<unknown>, failed: boolean, outcome: unknown): void {
    this.cache.written(command.args);
    this.next?.commandSettled(command, failed, outcome);
  }
}

/**
 * The cache's name of a key argument: the string itself, a number's text on the wire, a Buffer's
 * UTF-8 text when it is valid UTF-8 (invalidations arrive as text), undefined otherwise.
 */
function cacheKey(arg: RespArgument): string | undefined {
  if (typeof arg === 'string') return arg;
  // As the encoder writes it ('1000000000000000000000', not '1e+21'): the key invalidations name.
  if (typeof arg === 'number') return numberText(arg);
  if (typeof arg === 'bigint') return String(arg);
  const bytes = Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength);
  return isUtf8(bytes) ? bytes.toString() : undefined;
}

/**
 * The command and its arguments other than the key, as one string. For a read of the key alone
 * (GET, HGETALL, SMEMBERS) it is the command name itself, so the hit path builds no string.
 */
function signatureOf(args: readonly RespArgument[]): string {
  const name = args[0]!;
  if (args.length === 2 && typeof name === 'string') return name;
  let signature = argumentText(name);
  for (let i = 2; i < args.length; i++) {
    const arg = args[i]!;
    const text = argumentText(arg);
    // Length-prefixed and typed (bytes are read as latin1), so that no two argument lists that
    // differ on the wire give the same signature.
    signature += `${typeof arg === 'object' ? 'b' : 's'}${text.length}:${text}`;
  }
  return signature;
}
