// One data endpoint of a client (issue 11 "First, the shape"): its shared auto-pipelined channel,
// the dedicated connections its blocking commands and WATCH sessions borrow, its subscriber
// connection, and its circuit, checked right before every send on each of them (circuit-gate.ts).
// A router (router.ts) picks the node for each command; standalone is one node, Cluster one per
// cluster node, Sentinel the current primary and its replicas.
import type { RespireEndpoint } from '../../errors.js';
import { Channel, type ChannelOptions } from '../../transport/channel.js';
import { type Command, CommandFlags } from '../../transport/command.js';
import { Health } from '../../transport/health.js';
import { Maintenance } from '../../transport/maintenance/maintenance.js';
import { MaintenanceWindows } from '../../transport/maintenance/maintenance-windows.js';
import { coverRead } from '../cache/cached-read.js';
import type { ClientSideCache } from '../cache/client-side-cache.js';
import { CacheTracker } from '../cache/tracker.js';
import { clientErrorReporter, observeConnections, traceCommand } from '../diagnostics.js';
import type { ClientTelemetry } from '../metrics.js';
import type { ResolvedOptions } from '../options.js';
import { type PubSubListener, Subscriber } from '../pubsub/subscriber.js';
import { type TransactionTarget, TransactionTracker } from '../transactions/transaction-run.js';
import { type SessionPool, WatchSessions } from '../transactions/watch-session.js';
import { BlockingHold } from './blocking-hold.js';
import { CircuitGate, type ClientCircuit, type circuitRegistry } from './circuit-gate.js';
import { DedicatedPool } from './dedicated-pool.js';

export interface EndpointNodeSettings {
  /** The client's options, with `endpoint` this node's address as dialled. */
  readonly options: ResolvedOptions;
  readonly telemetry: ClientTelemetry;
  /** `redis.client.errors`: told what a caller received; none without that metric. */
  readonly errorSink: ((error: unknown) => void) | undefined;
  /** The client's circuit registry, shared by all its nodes; none without `circuitBreaker`. */
  readonly circuits: ReturnType<typeof circuitRegistry> | undefined;
  /** The client-side cache, whose invalidations this node's tracking connection hears. */
  readonly cache?: ClientSideCache | undefined;
  /** Commands every connection of the node runs after its handshake (READONLY on a replica). */
  readonly setupCommands?: readonly (readonly string[])[] | undefined;
  /** Told each time the shared connection is lost or a reconnect fails (Cluster refreshes, Sentinel asks again). */
  readonly onReconnecting?: (() => void) | undefined;
  /**
   * Blocking commands whose dedicated connection cannot be opened (the endpoint is down) wait for
   * the router to move them or for the endpoint to come back, under their acquire deadline
   * (blocking-hold.ts); without this they fail at once. Sentinel sets it.
   */
  readonly holdBlockingWhileDown?: boolean | undefined;
  /** The server announced that slots moved (SMIGRATED, PROTOCOL.md §5): Cluster refreshes. */
  readonly onSlotsMigrated?: (() => void) | undefined;
  /** Told each error a WATCH session's caller receives (Sentinel: a READONLY reply starts a lookup). */
  readonly onSessionError?: ((error: unknown) => void) | undefined;
  /** The node is closed for good (its close() finished, or destroy()): a failover member lets go of it. */
  readonly onClosed?: (() => void) | undefined;
  /** The server dropped a shard channel by itself (its slot moved): Cluster subscribes it anew. */
  readonly onShardChannelDropped?:
    | ((channel: string, listeners: ReadonlySet<PubSubListener>) => void)
    | undefined;
}

export class EndpointNode {
  readonly endpoint: RespireEndpoint;
  /** The endpoint's circuit; none without `circuitBreaker` (no per-command work). */
  readonly gate: CircuitGate | undefined;
  /** The shared pipeline. */
  readonly main: Channel;
  /** Transactions on `main` whose rest must not follow their MULTI onto a new connection. */
  readonly transactions = new TransactionTracker();
  readonly sessions: WatchSessions;
  /** Pub/sub on a connection of its own, opened on the first subscribe (pubsub/subscriber.ts). */
  readonly subscriber: Subscriber;
  /** The node's tracking connection (cache/tracker.ts); none without `clientSideCache`. */
  readonly tracker: CacheTracker | undefined;
  private readonly dedicated: DedicatedPool;
  /**
   * Lends dedicated connections, through the circuit, to blocking commands, WATCH sessions, and
   * streamed values, hash imports and durability batches (src/client/streams, imports, durable).
   */
  readonly lender: SessionPool;
  private readonly hold: BlockingHold | undefined;
  /**
   * The last moveHeldBlocking() (a new object each time): a blocking command that began waiting
   * for its dedicated connection before it goes to its `forward`, unwritten, once the wait ends.
   * Only failover groups move them: other clients keep nothing per command for it.
   */
  private moved: Moved | undefined;
  /** The last leave() (a new object each time): borrowings begun before it fail with its reason. */
  private left: { readonly reason: Error } | undefined;
  private closing: Promise<void> | undefined;
  /** The endpoint's maintenance windows (PROTOCOL.md §5), shared by its connections. */
  private readonly windows: MaintenanceWindows;

  constructor(private readonly settings: EndpointNodeSettings) {
    const { options, telemetry, circuits } = settings;
    const endpoint = options.endpoint;
    this.endpoint = endpoint;
    const gate =
      options.circuitBreaker === null
        ? undefined
        : new CircuitGate({ ...options, circuitBreaker: options.circuitBreaker, telemetry }, circuits);
    this.gate = gate;
    // PROTOCOL.md §5: one set of maintenance windows for the endpoint, shared by its connections;
    // only the shared pipeline and the tracking connection are handed over on MOVING (maintenance.ts).
    const windows = new MaintenanceWindows(options.maintenanceRelaxedTimeout, options.clock);
    this.windows = windows;
    // diagnostics.ts `respire:client:error`: a `reconnect` function that failed (issue 19 #5).
    const channelOptions: ChannelOptions = {
      ...options,
      maintenance: new Maintenance(options.maintenanceMode, windows, false, settings.onSlotsMigrated),
      gate,
      setupCommands: settings.setupCommands,
      onReconnectPolicyError: clientErrorReporter(endpoint),
    };
    // diagnostics.ts: `respire:connection:connect` for the shared connection.
    const connections = observeConnections(endpoint, 'shared');
    this.main = new Channel({
      ...channelOptions,
      maintenance: new Maintenance(options.maintenanceMode, windows, true, settings.onSlotsMigrated),
      onConnect: () => {
        this.transactions.onConnect();
        connections.connected();
        this.hold?.retryAll();
      },
      onDisconnect: connections.disconnected,
      onReconnectScheduled: (attempt, delay, cause) => {
        connections.reconnecting(attempt, delay, cause);
        settings.onReconnecting?.();
      },
    });
    this.hold = settings.holdBlockingWhileDown
      ? new BlockingHold({ ...options, retry: (command) => this.runDedicated(command, undefined) })
      : undefined;
    this.dedicated = new DedicatedPool(channelOptions, options.maxDedicatedConnections);
    // The tracking connection follows a MOVING as the shared pipeline does: left on the old
    // server, it would hear none of the writes made on the new one (tracker.ts).
    const tracking = new Maintenance(options.maintenanceMode, windows, true, settings.onSlotsMigrated);
    this.tracker =
      settings.cache && new CacheTracker({ ...channelOptions, maintenance: tracking }, settings.cache);
    this.lender = this.dedicatedLender();
    this.sessions = new WatchSessions(this.lender, {
      commandTimeout: options.commandTimeout,
      clock: options.clock,
      errorSink: bothSinks(settings.errorSink, settings.onSessionError),
      cache: settings.cache,
    });
    this.subscriber = new Subscriber({
      channel: channelOptions,
      commandTimeout: options.commandTimeout,
      circuit: gate,
      onShardChannelDropped: settings.onShardChannelDropped,
    });
  }

  /** The endpoint's circuit, read-only; undefined without `circuitBreaker`. */
  get circuit(): ClientCircuit | undefined {
    return this.gate?.circuit;
  }

  /** Whether the server announced a maintenance window on the endpoint that is still open. */
  get inMaintenance(): boolean {
    return this.windows.active;
  }

  /** The client closed or destroyed the node's dedicated connections (a failure it caused). */
  get dedicatedClosed(): boolean {
    return this.dedicated.isClosed();
  }

  /** Where this node's transactions are written: the shared pipeline. */
  get transactionTarget(): TransactionTarget {
    return this.main;
  }

  /** Opens the shared connection; rejects with its error. */
  start(): Promise<void> {
    this.tracker?.start();
    return this.main.start();
  }

  /** Opens the shared connection without waiting; failures reconnect per policy. */
  startInBackground(): void {
    this.tracker?.start();
    this.main.startInBackground();
  }

  /**
   * Sends one command: blocking ones on a dedicated connection, the rest on the shared pipeline.
   * Here the `respire:command:*` channels see it (diagnostics.ts), with the endpoint it went to,
   * unless a router traced the caller's command itself (`traced` false for its attempts).
   * `prefix` (a Cluster ASKING) is written right before it, on the same connection.
   */
  send(command: Command<unknown>, traced = true, prefix?: Command<unknown>): void {
    if (traced) traceCommand(command, this.endpoint, this.settings.options.clock);
    if (this.tracker !== undefined) coverRead(command, this.tracker);
    if ((command.flags & CommandFlags.Blocking) !== 0) this.runDedicated(command, prefix);
    else enqueueAfter(this.main, prefix, command);
  }

  /**
   * The node is replaced (a new Sentinel primary): blocking commands held here, and those whose
   * dedicated connection fails from now on, go to `forward` (seed 000: moved before acceptance).
   */
  moveBlocking(forward: (command: Command<unknown>) => void): void {
    this.hold?.moveTo(forward);
  }

  /**
   * A failover group switched away from this node's member, which stays (for probes and failback):
   * the blocking commands held now go to `forward`; later ones are held here as before.
   */
  moveHeldBlocking(forward: (command: Command<unknown>) => void): void {
    this.hold?.moveHeld(forward);
    this.moved = { forward };
  }

  /** A failover group switched (back) to this node's member: blocking commands waiting here stay. */
  keepBlocking(): void {
    this.moved = undefined;
  }

  /**
   * A failover group switched away from this node's member: a dedicated connection being borrowed
   * now (a WATCH, a durability batch, a stream) is given back unused and the borrower fails with
   * `reason`, nothing sent; a blocking command waiting for one moves (moveHeldBlocking).
   */
  leave(reason: Error): void {
    this.left = { reason };
  }

  /**
   * The last `leave()` (a new object each time; undefined before any): a session that noted it
   * when it began sees from a different one that the client has left this node since.
   */
  get departure(): { readonly reason: Error } | undefined {
    return this.left;
  }

  /**
   * Waits for every reply in flight, then closes every connection of the node. `sessionsEnded`:
   * what open WATCH sessions' later commands, and callers waiting for a dedicated connection, fail
   * with (a Sentinel switch says the node was replaced, not that the client closed).
   */
  close(sessionsEnded?: Error): Promise<void> {
    this.hold?.close();
    // The tracking connection carries no caller's command: nothing on it to wait for (tracker.ts).
    this.tracker?.destroy();
    this.closing ??= Promise.all([
      this.main.close(),
      this.dedicated.close(sessionsEnded),
      this.subscriber.close(),
      this.sessions.releaseAll(sessionsEnded),
    ]).then(() => {
      this.gate?.dispose();
      this.settings.onClosed?.();
    });
    return this.closing;
  }

  /** Closes every connection at once; what is queued or in flight rejects. */
  destroy(): void {
    this.hold?.close();
    this.main.destroy();
    this.dedicated.destroy();
    this.sessions.destroyAll();
    this.subscriber.destroy();
    this.tracker?.destroy();
    this.gate?.dispose();
    this.settings.onClosed?.();
  }

  /**
   * Dedicated connections for blocking commands and WATCH sessions. With a circuit, one is not even
   * opened while the circuit rejects, and failing to open one is a selection failure
   * (circuit-gate.ts `borrow`).
   */
  private dedicatedLender(): SessionPool {
    const { gate, dedicated } = this;
    const borrow = gate === undefined ? () => dedicated.acquire() : () => gate.borrow(dedicated);
    return {
      acquire: () => {
        const left = this.left;
        return borrow().then((channel) => {
          if (this.left === left) return channel;
          dedicated.release(channel);
          throw this.left!.reason;
        });
      },
      release: (channel) => dedicated.release(channel),
      discard: (channel) => dedicated.discard(channel),
    };
  }

  /** A blocking command borrows a connection of its own for as long as it runs. */
  private runDedicated(command: Command<unknown>, prefix: Command<unknown> | undefined): void {
    // A Cluster ASKING pair stays: the redirect named this node.
    const since = prefix === undefined ? this.moved : STAYS;
    this.lender.acquire().then(
      (channel) => {
        if (this.movedAway(command, since)) {
          this.dedicated.release(channel);
          return;
        }
        enqueueAfter(channel, prefix, command);
        command.promise.then(
          // A fire-and-forget command settles when written: the server is still blocked on it.
          () =>
            (command.flags & CommandFlags.FireAndForget) !== 0
              ? this.dedicated.discard(channel)
              : this.dedicated.release(channel),
          () => {
            // Aborted while blocked: the server is still blocked on that connection, so drop it.
            if (command.discardReply || channel.current === undefined) this.dedicated.discard(channel);
            else this.dedicated.release(channel);
          },
        );
      },
      (error) => {
        if (this.movedAway(command, since)) return;
        // Turned away by a switch (leave) that a switch back undid (keepBlocking): it waits here again.
        if (error === this.left?.reason && !command.settled) this.runDedicated(command, prefix);
        else if (this.hold?.hold(command, error) !== true) command.reject(error);
      },
    );
  }

  /**
   * Ends the wait of `command` for its connection, begun when `since` was the last move; true when
   * a switch sent it elsewhere meanwhile.
   */
  private movedAway(command: Command<unknown>, since: Moved | undefined | typeof STAYS): boolean {
    const moved = this.moved;
    if (since === STAYS || moved === since || moved === undefined || command.settled) return false;
    command.reportHealth(Health.None); // a probe ticket taken while waiting ends with no outcome
    moved.forward(command);
    return true;
  }
}

/** A failover switch's destination for blocking commands waiting for a connection (moveHeldBlocking). */
interface Moved {
  readonly forward: (command: Command<unknown>) => void;
}

/** A blocking command written after a Cluster ASKING: it never moves. */
const STAYS = null;

/** One error sink telling `first` and then `second`, either of which may be absent. */
function bothSinks(
  first: ((error: unknown) => void) | undefined,
  second: ((error: unknown) => void) | undefined,
): ((error: unknown) => void) | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  return (error) => {
    first(error);
    second(error);
  };
}

/** `prefix` and then `command` into one channel's queue, so they leave on one connection, in order. */
function enqueueAfter(
  channel: Channel,
  prefix: Command<unknown> | undefined,
  command: Command<unknown>,
): void {
  if (prefix !== undefined) channel.enqueue(prefix);
  if (!command.settled) channel.enqueue(command);
}

/** Whether a maintenance window is open on one of `nodes` (a failover member's, its probe client's). */
export function anyInMaintenance(nodes: Iterable<EndpointNode>): boolean {
  for (const node of nodes) if (node.inMaintenance) return true;
  return false;
}
