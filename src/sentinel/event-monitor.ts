// The event subscription (issue 12 "Discovery", PROTOCOL.md §3.8): one sentinel at a time, over a
// connection of its own, SUBSCRIBEd to the channels of events.ts. When that sentinel fails (its
// connection closes, or a PING gets no answer in time) the monitor moves to the next sentinel in
// the list, backing off while none accepts. RESP3 events arrive as pushes, RESP2 ones as arrays
// on the subscribed connection; the Connection hands both to `onPush`.
import type { RespireEndpoint, RespireError } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { Command, CommandFlags } from '../transport/command.js';
import { connect } from '../transport/connect.js';
import type { Connection } from '../transport/connection.js';
import { Periodic } from '../util/periodic.js';
import { RingQueue } from '../util/ring-queue.js';
import type { DiscoveryContext } from './ask-in-turn.js';
import { backoffDelay, Wakeup } from './backoff.js';
import { EVENT_CHANNELS, readEvent, type SentinelEvent } from './events.js';
import { sentinelAttemptMs, sentinelSettings } from './exchange.js';

/** How often the subscribed connection is checked with PING, ms (a black-holed sentinel sends no FIN). */
export const MONITOR_PING_MS = 1000;

export interface MonitorListener {
  onEvent(event: SentinelEvent): void;
  /** Subscribed on `sentinel`: events missed before now are unknown, so the caller resolves again. */
  onSubscribed(sentinel: RespireEndpoint): void;
  onError(error: RespireError): void;
}

export class EventMonitor {
  private connection: Connection | undefined;
  private subscribedTo: RespireEndpoint | undefined;
  private stopped = false;
  private readonly wakeup: Wakeup;
  private firstRound: Promise<void> | undefined;

  constructor(
    private readonly context: DiscoveryContext,
    private readonly listener: MonitorListener,
  ) {
    this.wakeup = new Wakeup(context.clock);
  }

  /** The sentinel whose events arrive now, if any. */
  get sentinel(): RespireEndpoint | undefined {
    return this.subscribedTo;
  }

  /** Starts watching; resolves once the first round over the sentinels ended (subscribed or not). */
  start(): Promise<void> {
    this.firstRound ??= new Promise<void>((resolve) => {
      void this.run(resolve);
    });
    return this.firstRound;
  }

  stop(): void {
    this.stopped = true;
    this.wakeup.wake();
    this.connection?.destroy(undefined);
  }

  private async run(firstRoundDone: () => void): Promise<void> {
    let failedRounds = 0;
    while (!this.stopped) {
      const subscription = await this.subscribeToAny();
      firstRoundDone();
      if (subscription !== undefined) {
        failedRounds = 0;
        await subscription.ended;
        continue;
      }
      failedRounds++;
      await this.wakeup.pause(backoffDelay(failedRounds, this.context.random));
    }
  }

  /**
   * Tries each sentinel in list order; returns the subscription (its end as a promise, wrapped: a
   * promise returned from an async function would be awaited), or undefined when none accepted.
   */
  private async subscribeToAny(): Promise<{ ended: Promise<void> } | undefined> {
    for (const sentinel of this.context.sentinels.all) {
      if (this.stopped) return undefined;
      try {
        return await this.subscribe(sentinel);
      } catch (error) {
        this.listener.onError(error as RespireError);
      }
    }
    return undefined;
  }

  private async subscribe(sentinel: RespireEndpoint): Promise<{ ended: Promise<void> }> {
    let markEnded!: () => void;
    const ended = new Promise<void>((resolve) => {
      markEnded = resolve;
    });
    const connection = await connect(sentinelSettings(this.context, sentinel), {
      onPush: (frame: RespValue[]) => {
        const event = readEvent(frame);
        if (event !== undefined) this.listener.onEvent(event);
      },
      onDrain() {},
      onClose: () => markEnded(),
    });
    if (this.stopped) {
      connection.destroy(undefined);
      return { ended };
    }
    const timeoutMs = sentinelAttemptMs(this.context);
    const command = new Command<RespValue>(
      ['SUBSCRIBE', ...EVENT_CHANNELS],
      CommandFlags.Subscription,
      undefined,
      undefined,
      timeoutMs,
    );
    command.confirmationsLeft = EVENT_CHANNELS.length;
    const queue = new RingQueue<Command<unknown>>(1);
    queue.push(command as Command<unknown>);
    connection.writeFrom(queue, undefined);
    try {
      await command.promise;
    } catch (error) {
      connection.destroy(undefined);
      throw error;
    }
    // Stopped while SUBSCRIBE awaited its confirmation: stop() could not see this connection.
    if (this.stopped) {
      connection.destroy(undefined);
      return { ended };
    }
    this.connection = connection;
    this.subscribedTo = sentinel;
    // On the client's clock, unref'd (util/periodic.ts), as every timer of the client.
    const pinger = new Periodic(this.context.clock, MONITOR_PING_MS, () => this.ping(connection, timeoutMs));
    pinger.start();
    void ended.then(() => {
      pinger.stop();
      if (this.connection === connection) {
        this.connection = undefined;
        this.subscribedTo = undefined;
      }
    });
    this.listener.onSubscribed(sentinel);
    return { ended };
  }

  /**
   * A PING without an answer in time fails alone, and then the connection, silent past the PING's
   * deadline, is replaced by the Connection's unresponsive rule: it closes, and the monitor moves on.
   */
  private ping(connection: Connection, timeoutMs: number): void {
    connection.request(['PING'], timeoutMs).catch(() => connection.destroy(undefined));
  }
}
