// The settings of a Channel (channel.ts): how to connect, its bounds, reconnect policy, gate and
// the hooks its owner (a node, a subscriber) listens on.
import type { RespireError } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import type { RandomSource } from '../util/random.js';
import type { AdmissionGate } from './admission-gate.js';
import type { Command } from './command.js';
import type { ConnectionSettings } from './connect.js';
import type { Connection } from './connection.js';
import type { ReconnectFunction } from './reconnect-policy.js';

export interface ChannelOptions extends ConnectionSettings {
  /** Commands not yet written; more wait for room (at most as many again), up to `acquireTimeout`. */
  maxPendingCommands: number;
  acquireTimeout: number;
  reconnect: ReconnectFunction | false;
  /** `reconnect` threw or gave an invalid delay; the default policy decided instead. */
  onReconnectPolicyError?: ((error: RespireError) => void) | undefined;
  /** Jitter of the default policy when it stands in for a failed `reconnect`. */
  random?: RandomSource | undefined;
  gate?: AdmissionGate | undefined;
  onPush?: ((frame: RespValue[]) => void) | undefined;
  /** Runs on every new connection before queued commands are written. */
  onConnect?: ((connection: Connection) => void) | undefined;
  /**
   * Right after `onConnect`: commands to write on the new connection ahead of anything queued
   * (subscriptions to restore), as the socket drains. They are part of setting the connection
   * up, so neither `maxPendingCommands`, the gate (seed 000: reconnect set-up is not checked) nor
   * an acquire deadline applies to them. Those not written when the connection ends fail with
   * `written: false`.
   */
  writeFirst?: ((connection: Connection) => readonly Command<unknown>[]) | undefined;
  /**
   * A connection of this channel ended; `error` is undefined when the client closed it. `replaced`:
   * it was no longer the channel's connection (a MOVING handoff's old one, QUIT after the swap).
   */
  onDisconnect?: ((error: RespireError | undefined, replaced: boolean) => void) | undefined;
  /** A reconnect attempt is scheduled `delayMs` from now. */
  onReconnectScheduled?: ((attempt: number, delayMs: number, cause: RespireError) => void) | undefined;
}
