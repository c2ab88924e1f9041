// A MOVING handoff of one channel (PROTOCOL.md §5 "Expected behaviour" 2, seed 000 "Retries"):
// new writes pause on the connection; a replacement opens to the announced endpoint (or, when none
// is announced, to the configured one after half the announced time, writing on as before until
// then) with the same handshake; the replies still owed on the old socket are read; then the
// replacement takes over and the commands that waited are written on it. Commands not yet accepted
// are thus admitted on the replacement (by the gate, right before their write) under their
// original deadlines; written ones finish on the old socket, never replayed. A batch's entries
// queued together stay on the channel in order; a transaction's MULTI and steps are written
// together, so it moves only whole, before acceptance. If the replacement cannot be opened, writes
// resume on the old connection. If the old connection is lost meanwhile (a reset), the replacement
// is the channel's reconnection, or replaces the connection the channel reconnected with.
import type { RespireEndpoint } from '../../errors.js';
import { startTimer } from '../../util/timers.js';
import type { Connection } from '../connection.js';
import type { MaintenanceWindows } from './maintenance-windows.js';
import type { MaintenanceNotification } from './notifications.js';

/** What a handoff needs of a channel (Channel implements it). */
export interface HandoffChannel {
  /** The configured endpoint. */
  readonly endpoint: RespireEndpoint;
  readonly current: Connection | undefined;
  /** Holds (true) or resumes (false) the writing of queued commands. */
  pauseWrites(paused: boolean): void;
  /**
   * Opens a connection to `endpoint` with the channel's handshake; once `old` owes no reply, it
   * replaces `old` if that is still the channel's connection, or becomes the channel's connection
   * if `old` was lost and the channel is still reconnecting (true); else it is closed (false).
   */
  replaceConnection(old: Connection, endpoint: RespireEndpoint): Promise<boolean>;
}

/** Connections a handoff replaces at most: its old one, and ones the channel reconnected with meanwhile. */
const MAX_REPLACEMENTS = 3;
/** Bounds the QUIT of the replaced connection, which owes nothing any more. */
const QUIT_BOUND_MS = 1000;

export async function handOff(
  channel: HandoffChannel,
  moving: Extract<MaintenanceNotification, { kind: 'moving' }>,
  windows: MaintenanceWindows,
): Promise<void> {
  const clock = windows.clock;
  if (moving.to === null) {
    // On the client's clock (util/timers.ts); unref: a closed client is not kept alive by the wait.
    await new Promise<void>((resolve) => startTimer(clock, resolve, (moving.timeS * 1000) / 2, true));
  }
  let old = channel.current;
  if (old === undefined) return;
  channel.pauseWrites(true);
  try {
    for (let attempt = 1; ; attempt++) {
      if (await channel.replaceConnection(old, moving.to ?? channel.endpoint)) {
        await old.quit(QUIT_BOUND_MS);
        return;
      }
      // The old connection was lost meanwhile and the channel already reconnected, to its
      // configured endpoint, which the MOVING said goes away: replace that one instead (nothing
      // was written on it, writes are paused). Otherwise (closing, or a failed replacement) stop.
      const current = channel.current;
      if (current === undefined || current === old || attempt === MAX_REPLACEMENTS) return;
      old = current;
    }
  } catch {
    // No replacement: the old connection carries on until the server closes it, then the channel
    // reconnects to its configured endpoint as after any lost connection (moved-endpoint.ts).
    if (moving.to !== null) windows.moved.refused(moving.to);
  } finally {
    channel.pauseWrites(false);
  }
}
