// Replays the spool to Redis in order, in the background: one batch in flight at a time, each batch
// one EVAL that adds all its events to the stream atomically, so a batch is either wholly written
// or (when its outcome is unknown) wholly resent, and a later batch is never written before an
// earlier one. While the circuit is open a batch is rejected at once and retried when the circuit
// says it will admit a probe; the batch is that probe.
import { RespireCircuitOpenError } from '../../src/index.js';
import type { PublisherMonitor } from './monitor.js';
import { decodeEvent } from './record-codec.js';
import type { Spool, SpoolBatch, SpoolPosition } from './spool.js';

/** XADDs every (key, data) pair of ARGV to KEYS[1], in order, as one atomic step. */
const REPLAY_SCRIPT = `for i = 1, #ARGV, 2 do
  redis.call('XADD', KEYS[1], '*', 'key', ARGV[i], 'data', ARGV[i + 1])
end
return #ARGV / 2`;

/** The one command the replayer needs; RespireClient has it. */
export interface ReplayTarget {
  eval(
    script: string,
    keys: readonly string[],
    args: readonly (string | Buffer)[],
    options: { timeout: number },
  ): Promise<unknown>;
}

export interface ReplayerOptions {
  readonly stream: string;
  readonly batchEvents: number;
  readonly batchBytes: number;
  /** Reply deadline of a batch. */
  readonly timeoutMs: number;
  /** Wait before retrying a batch that failed other than by a circuit rejection. */
  readonly retryMs: number;
}

export interface ReplayerHooks {
  /** A batch that holds every spooled event is about to be sent. */
  lastBatch(): void;
  /** A batch failed; it will be retried later. */
  failed(): void;
  /** The spool is empty and no batch is in flight. */
  drained(): void;
}

export class SpoolReplayer {
  private inFlight = false;
  /** Resolves `stop()` once the batch in flight has settled. */
  private settledInFlight: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private failuresInARow = 0;
  private readFailuresInARow = 0;

  constructor(
    private readonly redis: ReplayTarget,
    private readonly spool: Spool,
    private readonly options: ReplayerOptions,
    private readonly monitor: PublisherMonitor,
    private readonly hooks: ReplayerHooks,
  ) {}

  /** Whether a batch is on its way (its events are still in the spool until it succeeds). */
  get busy(): boolean {
    return this.inFlight;
  }

  /** Something was spooled: start replaying unless already replaying or waiting to retry. Never throws. */
  kick(): void {
    if (this.inFlight || this.timer !== undefined || this.stopped) return;
    this.step(() => this.sendNext());
  }

  /** The circuit closed: retry now rather than at the scheduled time. */
  wake(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.kick();
  }

  /** No batch is started after this; resolves when the one in flight (if any) has settled. */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.inFlight) return Promise.resolve();
    return new Promise((resolve) => {
      this.settledInFlight = resolve;
    });
  }

  private batchSettled(): void {
    this.inFlight = false;
    this.settledInFlight?.();
    this.settledInFlight = undefined;
  }

  /**
   * Runs one replay step. An error in it (EIO reading the spool) is logged and the step retried
   * later; it is never thrown into a `publish` whose event is already spooled, nor left as an
   * unhandled rejection of a batch's callback (issue 18, defect 4 and "Also").
   */
  private step(run: () => void): void {
    try {
      run();
    } catch (error) {
      if (isPowerOfTen(++this.readFailuresInARow)) {
        this.monitor.log('error', 'spool-read-failed', 'reading the spool failed; retrying', {
          error: error instanceof Error ? error.message : String(error),
          failuresInARow: this.readFailuresInARow,
          retryInMs: this.options.retryMs,
        });
      }
      this.retryLater(this.options.retryMs);
      this.hooks.failed();
    }
  }

  private retryLater(delayMs: number): void {
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.kick();
      },
      Math.max(1, delayMs),
    );
  }

  /** A batch was delivered: consumes it and counts its records (`undecodable` of them as corrupt). */
  private consumed(position: SpoolPosition, undecodable: number): void {
    // 0 for a batch counted already; a batch drop-oldest detached counts here, not as dropped.
    const records = this.spool.consume(position);
    if (records === 0) return;
    if (records > undecodable) this.monitor.count('replayed', records - undecodable);
    this.skipped(undecodable);
  }

  /** Records found unreadable are skipped for good: counted and logged (seed 001). */
  private skipped(records: number): void {
    if (records === 0) return;
    this.monitor.count('corrupt', records);
    this.monitor.log('error', 'spool-corrupt', 'spooled records became unreadable and were skipped', {
      records,
    });
  }

  private sendNext(): void {
    let batch: SpoolBatch;
    let events: BatchEvents;
    do {
      batch = this.spool.peek(this.options.batchEvents, this.options.batchBytes);
      this.readFailuresInARow = 0;
      // drop-oldest deleted the last batch's segment while it was on the wire, and then it failed.
      this.monitor.spoolDropped(batch.droppedInFlight);
      this.skipped(batch.skippedCorrupt);
      if (batch.payloads.length === 0) {
        this.hooks.drained();
        return;
      }
      events = batchEvents(batch.payloads);
      // Nothing in it to send: consumed at once.
      if (events.args.length === 0) this.consumed(batch.position, events.undecodable);
    } while (events.args.length === 0);
    if (batch.position.records === this.spool.records) this.hooks.lastBatch();
    const { args, undecodable } = events;
    let reply: Promise<unknown>;
    try {
      reply = this.redis.eval(REPLAY_SCRIPT, [this.options.stream], args, {
        timeout: this.options.timeoutMs,
      });
    } catch (error) {
      // A client that throws rather than rejects: a failed batch like any other, retried (review of
      // issue 18: marked in flight first, the replayer never sent again and `stop()` never settled).
      reply = Promise.reject(error);
    }
    this.inFlight = true;
    reply.then(
      () => {
        this.batchSettled();
        this.failuresInARow = 0;
        this.step(() => {
          this.consumed(batch.position, undecodable);
          if (!this.stopped) this.sendNext();
        });
      },
      (error: unknown) => {
        this.batchSettled();
        if (this.stopped) return;
        let delayMs = this.options.retryMs;
        if (error instanceof RespireCircuitOpenError) {
          // Open: retry when the open delay ends. Null: probes are taken; try again shortly.
          delayMs = error.retryAfter ?? this.options.retryMs;
        } else if (isPowerOfTen(++this.failuresInARow)) {
          // The 1st, 10th, 100th… failure in a row: an outage is logged, not one line per retry.
          const name = error instanceof Error ? error.name : typeof error;
          this.monitor.log('warn', 'replay-failed', `replay batch failed (${name}); retrying`, {
            error: error instanceof Error ? error.message : String(error),
            failuresInARow: this.failuresInARow,
            retryInMs: delayMs,
            spooledEvents: this.spool.records,
          });
        }
        this.retryLater(delayMs);
        // After the timer is set, so that events spooled by the hook wait for it too.
        this.hooks.failed();
      },
    );
  }
}

interface BatchEvents {
  /** Key and data of each event, for the replay script. */
  readonly args: (string | Buffer)[];
  /** Records that are not events. */
  readonly undecodable: number;
}

/**
 * The events of a batch. A record whose checksum holds but that is no event (appended through
 * `Spool.append` directly, or record-shaped bytes a resync landed on) is left out, to be counted
 * as corrupt (review of issue 18: `decodeEvent` threw on every retry and replay stopped for good).
 */
function batchEvents(payloads: readonly Buffer[]): BatchEvents {
  const args: (string | Buffer)[] = [];
  let undecodable = 0;
  for (const payload of payloads) {
    try {
      const event = decodeEvent(payload);
      args.push(event.key, event.data);
    } catch {
      undecodable++;
    }
  }
  return { args, undecodable };
}

function isPowerOfTen(count: number): boolean {
  for (let power = 1; power <= count; power *= 10) if (power === count) return true;
  return false;
}
