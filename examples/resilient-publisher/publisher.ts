// The resilient publisher of seed 001 on Respire: `publish` settles within its deadline whatever
// Redis does. While the spool is empty, events are XADDed directly; an event whose write is
// rejected by the open circuit, times out, or loses its connection goes to the durable spool
// instead, and so does every later event until the spool has been replayed, so the spool always
// reaches Redis before anything published after it (README "Ordering").
import { randomUUID } from 'node:crypto';
import type { CircuitState } from '../../src/breaker/index.js';
import {
  RespireCircuitOpenError,
  type RespireClient,
  RespireConnectionError,
  type RespireMeter,
  RespireServerError,
  RespireTimeoutError,
} from '../../src/index.js';
import { jsonLinesToStderr, type PublisherLogger, PublisherMonitor, type PublisherStats } from './monitor.js';
import { type PendingPublish, PendingPublishes, type PublishOutcome } from './pending-publishes.js';
import { encodeEvent, MAX_KEY_BYTES } from './record-codec.js';
import { SpoolReplayer } from './replayer.js';
import { Spool } from './spool.js';
import { SpoolSyncError } from './spool-errors.js';
import type { SpoolOptions } from './spool-options.js';

export type { PublishOutcome } from './pending-publishes.js';

/** What the publisher uses of a client; `RespireClient` fits. */
export type PublisherRedis = Pick<RespireClient, 'xadd' | 'eval' | 'circuit'>;

export interface ResilientPublisherOptions {
  /** The stream events are added to, as entries `key <idempotency key> data <bytes>`. */
  stream: string;
  /** An open spool, or the options to open one. */
  spool: Spool | SpoolOptions;
  /** Longest a `publish` call may take. Default 250; 10 to 60,000 ms. */
  deadlineMs?: number;
  /** Part of the deadline kept for spooling and timer lateness. Default a fifth of `deadlineMs`. */
  deadlineReserveMs?: number;
  /** Calls awaiting an outcome; more are spooled at once. Default 10,000. */
  maxInFlight?: number;
  /** Events per replay batch. Default 256. */
  replayBatchEvents?: number;
  /** Bytes read from the spool per replay batch. Default 1 MiB. */
  replayBatchBytes?: number;
  /** Reply deadline of a replay batch. Default 2,000 ms. */
  replayTimeoutMs?: number;
  /** Wait before retrying a failed batch when the circuit gives no time. Default 250 ms. */
  replayRetryMs?: number;
  /** Default: JSON lines on stderr. */
  logger?: PublisherLogger;
  /** An OpenTelemetry-compatible meter for the publisher's own counters (monitor.ts). */
  meter?: RespireMeter;
}

/** Server replies that say "not now" rather than "never": the event is spooled, not refused. */
const TRANSIENT_CODES = new Set([
  'OOM',
  'BUSY',
  'LOADING',
  'READONLY',
  'MASTERDOWN',
  'TRYAGAIN',
  'CLUSTERDOWN',
]);

/** Whether a failed write is worth spooling: nothing sent, or its outcome unknown, or transient. */
function isOutage(error: unknown): boolean {
  return (
    error instanceof RespireCircuitOpenError ||
    error instanceof RespireTimeoutError ||
    error instanceof RespireConnectionError ||
    (error instanceof RespireServerError && TRANSIENT_CODES.has(error.code))
  );
}

export class ResilientPublisher {
  readonly spool: Spool;
  private readonly monitor: PublisherMonitor;
  private readonly replayer: SpoolReplayer;
  private readonly pending: PendingPublishes;
  private readonly stream: string;
  private readonly budgetMs: number;
  private readonly maxInFlight: number;
  /**
   * Set while the replayer sends the batch that empties the spool: calls made meanwhile wait here
   * (within their deadline) and are sent right after it, rather than appended behind it, so that
   * steady traffic cannot keep the spool from ever becoming empty.
   */
  private held: PendingPublish[] | undefined;
  private readonly keyPrefix = randomUUID();
  private sequence = 0;
  private closing = false;
  private readonly drainWaiters: (() => void)[] = [];
  private readonly unwatchCircuit: () => void;

  constructor(
    private readonly redis: PublisherRedis,
    options: ResilientPublisherOptions,
  ) {
    const deadlineMs = bounded(options.deadlineMs, 'deadlineMs', 250, 10, 60_000);
    const reserve = bounded(
      options.deadlineReserveMs,
      'deadlineReserveMs',
      Math.floor(deadlineMs / 5),
      0,
      deadlineMs - 1,
    );
    this.budgetMs = deadlineMs - reserve;
    this.maxInFlight = bounded(options.maxInFlight, 'maxInFlight', 10_000, 1, 1_000_000);
    this.stream = options.stream;
    this.spool = options.spool instanceof Spool ? options.spool : Spool.open(options.spool);
    this.monitor = new PublisherMonitor(options.logger ?? jsonLinesToStderr, options.meter, options.stream);
    // No reply in time: the write may or may not land; the spooled copy makes sure it does.
    this.pending = new PendingPublishes(this.budgetMs, (entry) => this.spoolPending(entry));
    const replay = {
      stream: options.stream,
      batchEvents: bounded(options.replayBatchEvents, 'replayBatchEvents', 256, 1, 100_000),
      batchBytes: bounded(options.replayBatchBytes, 'replayBatchBytes', 1024 * 1024, 64, 2 ** 30),
      timeoutMs: bounded(options.replayTimeoutMs, 'replayTimeoutMs', 2_000, 1, 600_000),
      retryMs: bounded(options.replayRetryMs, 'replayRetryMs', 250, 1, 600_000),
    };
    this.replayer = new SpoolReplayer(redis, this.spool, replay, this.monitor, {
      lastBatch: () => {
        this.held ??= [];
      },
      failed: () => this.spoolHeld(),
      drained: () => this.drainedNow(),
    });
    const circuit = redis.circuit;
    if (circuit === undefined) {
      this.monitor.log(
        'warn',
        'no-circuit-breaker',
        'client has no circuitBreaker: every write waits its timeout',
      );
      this.unwatchCircuit = () => {};
    } else {
      this.unwatchCircuit = circuit.onTransition((from, to) => this.circuitChanged(from, to));
    }
    this.spool.onFault = (fault) => this.monitor.spoolFault(fault);
    this.monitor.spoolRecovered(this.spool.recovery);
    if (!this.spool.isEmpty) this.replayer.kick();
  }

  /** Counters since start, plus the spool's depth now. */
  get stats(): Readonly<PublisherStats> & { spooledEvents: number; spoolBytes: number } {
    return { ...this.monitor.stats, spooledEvents: this.spool.records, spoolBytes: this.spool.bytes };
  }

  /** Whether the spool holds events or a replay batch is on its way. */
  get spooling(): boolean {
    return !this.spool.isEmpty || this.replayer.busy;
  }

  /**
   * Publishes one event; settles within `deadlineMs`: `delivered` (in the stream), `spooled` (on
   * disk, to be replayed), or rejected when it cannot be kept (SpoolFullError under the `reject`
   * policy, a server error such as WRONGTYPE, a bad key). `key` is the idempotency key consumers
   * dedupe on; by default a unique one is made.
   */
  publish(data: string | Buffer, options?: { key?: string }): Promise<PublishOutcome> {
    if (this.closing) return Promise.reject(new Error('publisher is closed'));
    let key = options?.key;
    if (key === undefined) key = `${this.keyPrefix}-${++this.sequence}`;
    else if (typeof key !== 'string' || key.length === 0 || Buffer.byteLength(key) > MAX_KEY_BYTES) {
      return Promise.reject(new RangeError(`idempotency key must be 1 to ${MAX_KEY_BYTES} UTF-8 bytes`));
    }
    this.monitor.stats.published++;
    if (this.pending.unsettled >= this.maxInFlight || (this.held === undefined && this.spooling)) {
      try {
        return Promise.resolve(this.toSpool(key, data));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const entry = this.pending.add(key, data);
    if (this.held !== undefined) this.held.push(entry);
    else this.send(entry);
    return entry.promise;
  }

  /** Resolves once the spool is empty and no replay batch is in flight. */
  drained(): Promise<void> {
    if (!this.spooling) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Stops replaying, waits for calls to settle (each within its deadline), closes the spool. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.replayer.stop();
    this.spoolHeld();
    await this.pending.whenSettled();
    this.pending.stop();
    this.unwatchCircuit();
    this.spool.close();
  }

  private send(entry: PendingPublish): void {
    let reply: Promise<unknown>;
    try {
      reply = this.redis.xadd(
        this.stream,
        '*',
        { key: entry.key, data: entry.data },
        { timeout: this.budgetMs },
      );
    } catch (error) {
      // A client that throws rather than rejects settles this call, not `publish` (review of issue 18:
      // the throw escaped `publish` and the deadline spooled the event anyway: a retry duplicated it).
      reply = Promise.reject(error);
    }
    reply.then(
      () => {
        if (entry.settled) return;
        this.monitor.count('delivered');
        this.pending.resolve(entry, 'delivered');
      },
      (error: unknown) => {
        if (entry.settled) return;
        if (isOutage(error)) this.spoolPending(entry, error);
        else this.pending.reject(entry, error);
      },
    );
  }

  private spoolPending(entry: PendingPublish, cause?: unknown): void {
    try {
      this.pending.resolve(entry, this.toSpool(entry.key, entry.data, cause));
    } catch (error) {
      this.pending.reject(entry, error);
    }
  }

  /** The last batch failed (or we are closing): held calls go to the spool, in order. */
  private spoolHeld(): void {
    const held = this.held;
    this.held = undefined;
    for (const entry of held ?? []) if (!entry.settled) this.spoolPending(entry);
  }

  /**
   * Appends to the spool and starts the replayer. Throws when the spool did not take the event, and
   * only then (issue 18, defect 4): a rejected publish leaves nothing behind to be replayed.
   */
  private toSpool(key: string, data: string | Buffer, cause?: unknown): PublishOutcome {
    if (!this.spooling) {
      const reason = cause instanceof Error ? cause.name : 'no reply within the deadline';
      this.monitor.log('warn', 'spooling-started', `events go to the spool (${reason})`, {
        error: cause instanceof Error ? cause.message : undefined,
      });
    }
    const droppedBefore = this.spool.droppedRecords;
    let outcome: PublishOutcome = 'spooled';
    try {
      this.spool.append(encodeEvent(key, data));
    } catch (error) {
      if (!(error instanceof SpoolSyncError && error.kept)) {
        // drop-oldest may have made room before the write failed.
        this.monitor.spoolDropped(this.spool.droppedRecords - droppedBefore);
        this.monitor.spoolRefused(error);
        throw error;
      }
      outcome = 'spooled-unsynced';
      this.monitor.log('error', 'spool-sync-failed', error.message, { records: 1 });
    }
    this.monitor.count('spooled');
    this.monitor.spoolDropped(this.spool.droppedRecords - droppedBefore);
    this.replayer.kick();
    return outcome;
  }

  private circuitChanged(from: CircuitState, to: CircuitState): void {
    this.monitor.circuitTransition(from, to, this.spool.records);
    if (to === 'closed') this.replayer.wake();
  }

  /** The spool is empty: calls held during its last batch go out now, in order, then direct mode. */
  private drainedNow(): void {
    const held = this.held;
    this.held = undefined;
    this.monitor.log('info', 'spool-drained', 'spool replayed: publishing directly again', {
      replayedEvents: this.monitor.stats.replayed,
    });
    for (const entry of held ?? []) if (!entry.settled) this.send(entry);
    for (const wake of this.drainWaiters.splice(0)) wake();
  }
}

function bounded(
  value: number | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `publisher option ${name} must be an integer from ${min} through ${max}, got ${value}`,
    );
  }
  return value;
}
