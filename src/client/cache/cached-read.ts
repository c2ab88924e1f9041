// A cache miss on its way to Redis (issue 13): an ordinary command that also carries its key's
// placeholder and learns which node's tracking connection covers it, so that its raw reply is
// stored only if that connection heard every write since the read began.
import type { RespValue } from '../../resp/types.js';
import { Command, CommandFlags } from '../../transport/command.js';
import { Health } from '../../transport/health.js';
import type { Coverage, KeyHolder } from './cache-entries.js';
import type { ClientSideCache, PendingRead } from './client-side-cache.js';

export class CachedRead<T> extends Command<T> implements PendingRead {
  holder!: KeyHolder;
  signature = '';
  sequence = 0;
  coverage: Coverage | undefined = undefined;
  generation = 0;
  private cache: ClientSideCache | undefined = undefined;
  /** From `attach` until its reply or failure has been told to the cache (exactly once). */
  open = false;

  /** Takes the placeholder `ClientSideCache.begin` made for it. */
  attach(
    cache: ClientSideCache,
    placeholder: { holder: KeyHolder; signature: string; sequence: number },
  ): void {
    this.cache = cache;
    this.holder = placeholder.holder;
    this.signature = placeholder.signature;
    this.sequence = placeholder.sequence;
    this.open = true;
  }

  /**
   * Sent to a node (again, after a redirect or a failover move): covered by that node's tracking
   * connection if it is ready now, else not stored (and the connection is opened if need be).
   */
  sentVia(tracker: (Coverage & { start(): void }) | undefined): void {
    if (tracker === undefined || !tracker.ready) {
      this.coverage = undefined;
      tracker?.start();
      return;
    }
    this.coverage = tracker;
    this.generation = tracker.generation;
  }

  /** Leaves the cache: its reply will not be stored. */
  detach(): void {
    if (!this.open) return;
    this.open = false;
    this.cache!.abandon(this);
  }

  override reply(value: RespValue): void {
    if (this.open) {
      this.open = false;
      this.cache!.complete(this, value);
      // Seed 000: a fire-and-forget read still waits for its reply, to fill the cache, and so
      // records that reply's outcome (the base class records nothing for fire-and-forget).
      if ((this.flags & CommandFlags.FireAndForget) !== 0) this.reportHealth(Health.Success);
    }
    super.reply(value);
  }

  override reject(error: unknown): void {
    this.detach();
    super.reject(error);
  }
}

/**
 * EndpointNode.send: the node's tracking connection covers a cache miss written to it. A Cluster
 * attempt carries the caller's command as `origin` (cluster/cluster-attempt.ts).
 */
export function coverRead(command: Command<unknown>, tracker: Coverage & { start(): void }): void {
  if (command instanceof CachedRead) {
    command.sentVia(tracker);
    return;
  }
  const origin = (command as { origin?: unknown }).origin;
  if (origin instanceof CachedRead) origin.sentVia(tracker);
}

/**
 * Whether a fire-and-forget origin still wants its attempt's reply: a cache miss whose reply fills
 * the cache and is recorded (seed 000), although the caller was answered at the write.
 */
export function fillsCache(origin: Command<unknown>): boolean {
  return origin instanceof CachedRead && origin.open;
}
