// One node's tracking connection (issue 13, PROTOCOL.md §4): a connection of its own in BCAST mode,
// which hears of every key written on the node, whoever read it and on whatever connection. The
// cache thus survives the node's data connections being replaced (a reply timeout, a reconnect):
// its entries go only when this connection is lost or misses its health check, or a MOVING hands
// it over to another server, since Redis sends no invalidation for what happened while it was gone. RESP3 gets `invalidate` pushes on it; RESP2
// subscribes it to `__redis__:invalidate` and redirects its own tracking to itself.
import type { RespValue } from '../../resp/types.js';
import { Channel, type ChannelOptions } from '../../transport/channel.js';
import { Command, CommandFlags } from '../../transport/command.js';
import type { Connection } from '../../transport/connection.js';
import { Periodic } from '../../util/periodic.js';
import type { Coverage } from './cache-entries.js';
import type { ClientSideCache } from './client-side-cache.js';

/** How often the tracking connection is checked with PING (README "Client-side cache"). */
export const HEALTH_CHECK_INTERVAL_MS = 500;
/**
 * The PING's reply deadline, and the silence after which the connection counts as lost. With the
 * interval it bounds how long a black-holed node's entries are served: at most 1.5 s.
 */
export const HEALTH_CHECK_TIMEOUT_MS = 1000;

const INVALIDATE_CHANNEL = '__redis__:invalidate';

export class CacheTracker implements Coverage {
  ready = false;
  generation = 0;
  private channel: Channel | undefined;
  /** The health check, on the client's clock; one PING in flight at most. */
  private readonly checks: Periodic;
  private closed = false;

  constructor(
    /** The node's connection options; the tracker passes no circuit (seed 000: health checks are not checked). */
    private readonly options: ChannelOptions,
    private readonly cache: ClientSideCache,
  ) {
    this.checks = new Periodic(options.clock, HEALTH_CHECK_INTERVAL_MS, () => this.check());
  }

  /** Opens the tracking connection in the background, once; failures reconnect per policy. */
  start(): void {
    if (this.channel !== undefined || this.closed) return;
    const channel = new Channel({
      ...this.options,
      gate: undefined,
      setupCommands: undefined,
      writeFirst: undefined,
      onReconnectScheduled: undefined,
      returnBuffers: false,
      commandTimeout: HEALTH_CHECK_TIMEOUT_MS,
      // A MOVING hands this connection over too (maintenance.ts): from the swap on, writes go to
      // the new server, which never told the old connection of them, so the old one's entries go
      // then (`lost`), not when the old server finally closes it; its later QUIT changes nothing.
      onConnect: (connection) => {
        this.lost();
        this.arm(connection);
      },
      onDisconnect: (_error, replaced) => {
        if (!replaced) this.lost();
      },
      onPush: (frame) => this.heard(frame),
    });
    this.channel = channel;
    channel.startInBackground();
    this.checks.start();
  }

  /**
   * The node is closing or destroyed: its entries go with it. Closed at once, never gracefully:
   * the connection carries no caller's command, and waiting for its health check's PING would hold
   * the client's close() up to that PING's deadline, whatever `commandTimeout` says.
   */
  destroy(): void {
    this.stop();
    this.channel?.destroy();
  }

  /** The tracking connection, for tests. */
  get connection(): Connection | undefined {
    return this.channel?.current;
  }

  private stop(): void {
    this.closed = true;
    this.checks.stop();
    this.lost();
  }

  /** Turns tracking on for a new connection; covers reads only once the server confirmed it. */
  private arm(connection: Connection): void {
    const steps =
      connection.protocol === 3
        ? this.send(['CLIENT', 'TRACKING', 'ON', 'BCAST'])
        : this.send(['CLIENT', 'ID'])
            .then((id) => this.send(['CLIENT', 'TRACKING', 'ON', 'BCAST', 'REDIRECT', String(id)]))
            .then(() => {
              const subscribe = this.command(['SUBSCRIBE', INVALIDATE_CHANNEL], CommandFlags.Subscription);
              subscribe.confirmationsLeft = 1;
              return subscribe.promise;
            });
    steps.then(
      () => {
        // Every step ran on this connection only if it is still the current one.
        if (this.closed || this.channel?.current !== connection) return;
        this.ready = true;
        this.generation++;
      },
      // A refused step (an ACL without CLIENT TRACKING) leaves the cache uncovered: it stores
      // nothing. A lost connection arms its successor.
      () => {},
    );
  }

  private lost(): void {
    this.generation++;
    if (!this.ready) return;
    this.ready = false;
    this.cache.dropCovered(this);
  }

  /** RESP3 `invalidate` pushes, RESP2 messages on `__redis__:invalidate`; `null` means everything. */
  private heard(frame: RespValue[]): void {
    let keys: RespValue | undefined;
    if (frame[0] === 'invalidate') keys = frame[1];
    else if (frame[0] === 'message' && frame[1] === INVALIDATE_CHANNEL) keys = frame[2];
    else return;
    if (keys === null) this.cache.invalidateAll();
    else if (Array.isArray(keys)) for (const key of keys) this.cache.invalidate(String(key));
  }

  /** The health check: a PING that misses its deadline replaces the connection (`lost`). */
  private check(): Promise<RespValue> | undefined {
    return this.ready ? this.send(['PING']) : undefined;
  }

  private send(args: string[]): Promise<RespValue> {
    return this.command(args, CommandFlags.None).promise;
  }

  private command(args: string[], flags: number): Command<RespValue> {
    const command = new Command<RespValue>(args, flags, undefined, undefined, HEALTH_CHECK_TIMEOUT_MS);
    this.channel!.enqueue(command as Command<unknown>);
    return command;
  }
}
