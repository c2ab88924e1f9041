// Maintenance handling of one channel (PROTOCOL.md §5), given to it as `maintenance` in its
// settings: the opt-in mode its handshake uses (connect.ts), the endpoint's shared windows that
// relax its connections' deadlines (maintenance-windows.ts), and the push frames it takes before any
// other push handler sees them. MOVING hands the channel over to a new connection (handoff.ts) on
// the shared pipeline and a client-side cache's tracking connection only: blocking and subscribed
// connections are not handed over (§5 item 4); they only have their deadlines relaxed until they
// end and reconnect as usual.
import type { RespValue } from '../../resp/types.js';
import { Handoff, type HandoffChannel } from './handoff.js';
import type { MaintenanceWindows } from './maintenance-windows.js';
import { parseMaintenance } from './notifications.js';

/**
 * `maintenance` option: `auto` (default) sends `CLIENT MAINT_NOTIFICATIONS ON` after `HELLO 3` and
 * ignores a refusal (Redis 7.0 refuses); `enabled` fails the connection on a refusal or on RESP2;
 * `disabled` does not ask.
 */
export type MaintenanceMode = 'auto' | 'enabled' | 'disabled';

export class Maintenance {
  /**
   * The handoff of the latest MOVING on this channel, while under way: a repeat of its MOVING is
   * ignored, and a newer MOVING overtakes it (handoff.ts).
   */
  private handoff: Handoff | undefined;

  constructor(
    readonly mode: MaintenanceMode,
    readonly windows: MaintenanceWindows,
    /** Whether MOVING hands the channel over (the shared pipeline) or only relaxes (the others). */
    private readonly handoffs: boolean,
    /** Cluster: SMIGRATED says slots moved; the router refreshes its slot map. */
    private readonly onSlotsMigrated?: (() => void) | undefined,
  ) {}

  /** Takes a push frame that is a maintenance notification (returns true); leaves others alone. */
  onPush(frame: readonly RespValue[], channel: HandoffChannel): boolean {
    const notification = parseMaintenance(frame);
    if (notification === undefined) return false;
    if (notification.kind !== 'moving') {
      const fresh = this.windows.apply(notification);
      if (fresh && notification.type === 'SMIGRATED') this.onSlotsMigrated?.();
      return true;
    }
    const { seq, timeS } = notification;
    // The first of its copies (on the endpoint's other connections) says where new connections go.
    if (this.windows.apply({ kind: 'start', type: 'MOVING', seq, timeS })) {
      this.windows.moved.announce(notification.to, timeS);
    }
    if (!this.handoffs || this.handoff?.moving.seq === seq) return true;
    this.handoff?.overtake();
    const handoff = new Handoff(channel, notification, this.windows);
    this.handoff = handoff;
    this.windows.handoffStarted(seq, timeS);
    handoff.run().finally(() => {
      if (this.handoff === handoff) this.handoff = undefined;
      // Its own window only: a MIGRATING still open (an earlier seq) has not ended (§5 item 1).
      this.windows.handoffDone(seq);
    });
    return true;
  }
}
