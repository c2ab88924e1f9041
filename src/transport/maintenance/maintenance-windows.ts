// The maintenance windows of one endpoint (PROTOCOL.md §5 "Expected behaviour" 1 and 3), shared by
// every connection of it: while a window is open, command and socket deadlines are relaxed to at
// least the relaxed timeout (never lowered: a user's own longer timeout stays). Windows are kept by
// sequence number, so nested windows count (each start needs its own end) and a stale terminator
// (older than every open window) closes nothing; each window has a backstop expiry, three times
// its length or the relaxed timeout (whichever is longer), in case its end never comes. The same
// notification arriving on many connections (same type and seq) is applied once. Where the
// endpoint's new connections go after a MOVING is kept alongside (moved-endpoint.ts).
import type { Clock } from '../../util/clock.js';
import { MovedEndpoint } from './moved-endpoint.js';
import type { MaintenanceNotification } from './notifications.js';

/** Backstop: a window whose end never came closes after this many times its expected length. */
const BACKSTOP_FACTOR = 3;
/**
 * Notifications remembered for de-duplication across connections (PROTOCOL.md §5 item 3). The
 * memory only stops a copy from being applied twice; what a notification does never depends on
 * it: an end closes the open windows of its seq or earlier (kept in `open`, not here), so a
 * MIGRATED whose MIGRATING was forgotten still closes it, and a forgotten end applied again closes
 * nothing new. A copy is applied twice only if it arrives after 256 other notifications of the
 * endpoint: every connection's socket is read as the bytes come, so copies of one notification
 * arrive within a few reads of each other, and a maintenance sends a handful of notifications.
 * Seq numbers are safe integers (notifications.ts), so they do not wrap.
 */
const SEEN_LIMIT = 256;

export class MaintenanceWindows {
  /** Open windows: seq → backstop expiry (clock ms). */
  private readonly open = new Map<number, number>();
  private readonly seen = new Set<string>();
  /** MOVING handoffs under way, by seq. */
  private readonly handoffs = new Map<number, number>();
  /** Where the endpoint's new connections go after a MOVING. */
  readonly moved: MovedEndpoint;

  constructor(
    /** The relaxed timeout, ms (`maintenanceRelaxedTimeout`). */
    readonly relaxedTimeoutMs: number,
    /** The client's clock, which the windows' expiries and a handoff's wait run on. */
    readonly clock: Clock,
  ) {
    this.moved = new MovedEndpoint(clock);
  }

  /**
   * Applies a start or end notification unless one with the same type and seq was applied already
   * (on another connection). Returns false for such a duplicate.
   */
  apply(notification: Exclude<MaintenanceNotification, { kind: 'moving' }>): boolean {
    const key = `${notification.type}:${notification.seq}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value!);
    const { seq } = notification;
    if (notification.kind === 'end') this.end(seq);
    // A MOVING no handoff holds (seen only on connections not handed over): its endpoint is gone
    // by its announced time, and so is the need to relax; nothing else would end its window.
    else if (notification.type === 'MOVING' && !this.handoffs.has(seq))
      this.open.set(seq, this.clock.now() + notification.timeS * 1000);
    else this.start(seq, notification.timeS);
    return true;
  }

  /** Opens the window of `seq`, until its end or its backstop. */
  private start(seq: number, timeS: number): void {
    const lengthMs = Math.max(timeS * 1000, this.relaxedTimeoutMs);
    this.open.set(seq, this.clock.now() + BACKSTOP_FACTOR * lengthMs);
  }

  /** Closes the windows of `seq` and earlier; a stale end (older than every open one) closes none. */
  end(seq: number): void {
    for (const open of this.open.keys()) if (open <= seq) this.open.delete(open);
  }

  /**
   * A MOVING's handoff of one of the endpoint's connections (maintenance.ts) is under way: its
   * window stays open until the last handoff is done, or its backstop.
   */
  handoffStarted(seq: number, timeS: number): void {
    this.handoffs.set(seq, (this.handoffs.get(seq) ?? 0) + 1);
    if (this.open.has(seq)) this.start(seq, timeS);
  }

  /**
   * A MOVING's handoff is done: the last of them (the shared pipeline's and the tracking
   * connection's) closes the window of `seq` alone, whose end is no end of earlier windows. An
   * earlier one must not: the others still wait for replies on their old sockets (§5 item 2).
   */
  handoffDone(seq: number): void {
    const left = (this.handoffs.get(seq) ?? 1) - 1;
    if (left > 0) {
      this.handoffs.set(seq, left);
      return;
    }
    this.handoffs.delete(seq);
    this.open.delete(seq);
  }

  /** Whether a window is open now (expired ones are dropped first). */
  get active(): boolean {
    if (this.open.size === 0) return false;
    const now = this.clock.now();
    for (const [seq, expiry] of this.open) if (expiry <= now) this.open.delete(seq);
    return this.open.size > 0;
  }

  /**
   * The deadline a command of `timeoutMs` gets now: 0 (none) stays 0; inside a window at least
   * the relaxed timeout.
   */
  relax(timeoutMs: number): number {
    if (timeoutMs === 0 || timeoutMs >= this.relaxedTimeoutMs || !this.active) return timeoutMs;
    return this.relaxedTimeoutMs;
  }
}
