// A MOVING handoff of one channel (PROTOCOL.md §5 "Expected behaviour" 2, seed 000 "Retries"):
// new writes pause on the connection; a replacement opens to the announced endpoint (or, when none
// is announced, to the configured one after half the announced time, writing on as before until
// then) with the same handshake; the replies still owed on the old socket are read, for at most the
// announced time or the relaxed timeout (whichever is longer: a reply with no deadline may never
// come), and those still owed then fail, never resent; then the replacement takes over and the
// commands that waited are written on it. Commands not yet accepted
// are thus admitted on the replacement (by the gate, right before their write) under their
// original deadlines; written ones finish on the old socket, never replayed. A batch's entries
// queued together stay on the channel in order; a transaction's MULTI and steps are written
// together, so it moves only whole, before acceptance. If the replacement cannot be opened, writes
// resume on the old connection. If the old connection is lost meanwhile (a reset), the replacement
// is the channel's reconnection, or replaces the connection the channel reconnected with. Handoffs
// can overlap (a second MOVING during the first): each holds its own pause, and the latest MOVING
// wins; an older handoff overtaken by a newer one closes its replacement unused and stops.
import type { RespireEndpoint } from '../../errors.js';
import type { Clock } from '../../util/clock.js';
import { startTimer, stopTimer, type Timer } from '../../util/timers.js';
import type { Connection } from '../connection.js';
import { handoffOwedError } from './maintenance-errors.js';
import type { MaintenanceWindows } from './maintenance-windows.js';
import type { MaintenanceNotification } from './notifications.js';

/** What a handoff needs of a channel (Channel implements it). */
export interface HandoffChannel {
  /** The configured endpoint. */
  readonly endpoint: RespireEndpoint;
  readonly current: Connection | undefined;
  /** The connection the channel takes next (it is opening one), or undefined once it closes. */
  nextConnection(): Promise<Connection | undefined>;
  /**
   * Holds (true) the writing of queued commands, or releases (false) one hold: writes resume once
   * no handoff holds them.
   */
  pauseWrites(paused: boolean): void;
  /**
   * Opens a connection to `endpoint` with the channel's handshake; once `drained(old)` resolves
   * (`old` owes no reply, or the handoff stops waiting for them), if it is still `wanted`, it
   * replaces `old` if that is still the channel's connection, or becomes the channel's connection
   * if `old` was lost and the channel is still reconnecting (true); else it is closed (false).
   */
  replaceConnection(
    old: Connection,
    endpoint: RespireEndpoint,
    wanted: () => boolean,
    drained: (old: Connection) => Promise<void>,
  ): Promise<boolean>;
}

/** Connections a handoff replaces at most: its old one, and ones the channel reconnected with meanwhile. */
const MAX_REPLACEMENTS = 3;
/** Bounds the QUIT of the replaced connection, which owes nothing any more. */
const QUIT_BOUND_MS = 1000;

/** One MOVING's handoff of one channel; `run()` once, `overtake()` when a newer MOVING arrives. */
export class Handoff {
  private paused = false;
  private overtaken = false;

  constructor(
    private readonly channel: HandoffChannel,
    readonly moving: Extract<MaintenanceNotification, { kind: 'moving' }>,
    private readonly windows: MaintenanceWindows,
  ) {}

  /** A newer MOVING takes over: this one's pause ends now, and its replacement is not used. */
  overtake(): void {
    this.overtaken = true;
    this.resume();
  }

  async run(): Promise<void> {
    const { channel, moving } = this;
    if (moving.to === null) {
      // On the client's clock (util/timers.ts); unref: a closed client is not kept alive by the wait.
      await new Promise<void>((resolve) =>
        startTimer(this.windows.clock, resolve, (moving.timeS * 1000) / 2, true),
      );
    }
    let old = channel.current ?? (await this.opening());
    if (old === undefined || this.overtaken) return;
    channel.pauseWrites(true);
    this.paused = true;
    const wanted = (): boolean => !this.overtaken;
    const to = moving.to ?? channel.endpoint;
    // The wait for the old socket's replies is bounded (README "Server maintenance"): a reply with
    // no deadline (`timeout: 0`) may never come, and the endpoint goes away by the announced time.
    const waitMs = Math.max(moving.timeS * 1000, this.windows.relaxedTimeoutMs);
    const drainBy = this.windows.clock.now() + waitMs;
    const drained = (connection: Connection) =>
      within(connection.whenIdle(), drainBy - this.windows.clock.now(), this.windows.clock);
    try {
      for (let attempt = 1; ; attempt++) {
        if (await channel.replaceConnection(old, to, wanted, drained)) {
          // Writes go on at once on the replacement, not after the old connection's QUIT.
          this.resume();
          // Replies still owed past the wait fail: written, so never sent again.
          if (old.inflightCount > 0) old.destroy(undefined, handoffOwedError(old.endpoint, to, waitMs));
          await old.quit(QUIT_BOUND_MS);
          return;
        }
        // The old connection was lost meanwhile and the channel already reconnected, before the
        // replacement was ready: replace that one instead (nothing was written on it, writes are
        // paused). Otherwise (overtaken, closing, or a failed replacement) stop.
        const current = channel.current;
        if (this.overtaken || current === undefined || current === old || attempt === MAX_REPLACEMENTS)
          return;
        old = current;
      }
    } catch {
      // No replacement: the old connection carries on until the server closes it, then the channel
      // reconnects to its configured endpoint as after any lost connection (moved-endpoint.ts).
      if (moving.to !== null) this.windows.moved.refused(moving.to);
    } finally {
      this.resume();
    }
  }

  /**
   * The MOVING was read on a connection the channel had not taken yet: it came right behind the
   * last reply of its handshake, in the same read. The handoff replaces that connection once the
   * channel takes it, within the announced time; unless it was a reconnection that already went
   * where the MOVING said (dial.ts), or the channel closed.
   */
  private async opening(): Promise<Connection | undefined> {
    const next = await within(this.channel.nextConnection(), this.moving.timeS * 1000, this.windows.clock);
    const to = this.moving.to ?? this.channel.endpoint;
    return next?.endpoint.host === to.host && next.endpoint.port === to.port ? undefined : next;
  }

  private resume(): void {
    if (this.paused) this.channel.pauseWrites(false);
    this.paused = false;
  }
}

/** `promise`'s value, or undefined once `ms` passed first (on `clock`; unref: no process is kept alive). */
function within<T>(promise: Promise<T>, ms: number, clock: Clock): Promise<T | undefined> {
  let timer: Timer | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = startTimer(clock, () => resolve(undefined), Math.max(0, ms), true);
  });
  return Promise.race([promise, late]).finally(() => stopTimer(clock, timer));
}
