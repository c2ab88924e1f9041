// What `durable().execute()` reports (durable-batch.ts): per write, whether Redis applied it and
// whether it was acknowledged by as many replicas (and AOFs) as asked, read from WAIT's count or
// WAITAOF's `[local, replicas]` (PROTOCOL.md §6).
import { RespireProtocolError } from '../../errors.js';
import type { RespValue } from '../../resp/types.js';
import type { Command } from '../../transport/command.js';

/** `redis.durable(options)`. */
export interface DurableOptions {
  /** Replicas that must confirm the writes (WAIT numreplicas), at least 0. */
  replicas: number;
  /** The primary must also have written them to its AOF (WAITAOF numlocal 1; Redis 7.2+). */
  aofLocal?: boolean | undefined;
  /** Replicas that must have written them to their AOF (WAITAOF numreplicas; Redis 7.2+). */
  aofReplicas?: number | undefined;
  /** How long Redis waits for the confirmations, ms, at least 1 (WAIT's own timeout). */
  timeout: number;
}

/** The confirmations WAIT or WAITAOF reported for every write before it on the connection. */
export interface Acknowledgement {
  /** Replicas that confirmed (WAIT), or that wrote them to their AOF (WAITAOF). */
  readonly replicas: number;
  /** WAITAOF only: 1 when the primary wrote them to its AOF, else 0; null after WAIT. */
  readonly aofLocal: number | null;
  /** WAITAOF only: replicas that wrote them to their AOF; null after WAIT. */
  readonly aofReplicas: number | null;
}

/** The outcome of one write of a durable batch. */
export interface DurableWriteReport {
  /**
   * Redis applied the write: it answered without an error. False also when no reply came (a reply
   * timeout, a lost connection): the write may then have run, which its `error` says with
   * `written: true`; it is never sent again.
   */
  readonly applied: boolean;
  /** Its reply, when applied. */
  readonly value?: unknown;
  /** Why it failed: an error reply, a circuit rejection, a lost connection, … */
  readonly error?: unknown;
  /** Applied, and confirmed by at least as many replicas (and AOFs) as asked. */
  readonly acknowledged: boolean;
  /** How many replicas confirmed it; null when no acknowledgement was obtained. */
  readonly replicas: number | null;
  /** WAITAOF only: 1 when the primary wrote it to its AOF, else 0; null after WAIT or with no acknowledgement. */
  readonly aofLocal: number | null;
  /** WAITAOF only: replicas that wrote it to their AOF; null after WAIT or with no acknowledgement. */
  readonly aofReplicas: number | null;
}

/** What `durable(options).execute()` resolves with: each write's outcome and whether all were acknowledged. */
export interface DurableReport {
  /** One report per write, in queue order. */
  readonly writes: readonly DurableWriteReport[];
  /** Every write was applied and acknowledged (false for an empty batch: nothing was asked). */
  readonly acknowledged: boolean;
  /**
   * Why there is no acknowledgement: a write failed (so WAIT was not sent), or WAIT/WAITAOF itself
   * failed or was rejected, in which case the message says that the writes stay applied.
   * Undefined when WAIT/WAITAOF answered, even with fewer confirmations than asked.
   */
  readonly acknowledgementError: Error | undefined;
}

/** Reads WAIT's integer or WAITAOF's pair; a reply of another shape is a protocol error. */
export function acknowledgementOf(reply: RespValue, options: DurableOptions): Acknowledgement {
  if (typeof reply === 'number') return { replicas: reply, aofLocal: null, aofReplicas: null };
  if (Array.isArray(reply) && typeof reply[0] === 'number' && typeof reply[1] === 'number') {
    return { replicas: reply[1], aofLocal: reply[0], aofReplicas: reply[1] };
  }
  const name = options.aofLocal !== true && options.aofReplicas === undefined ? 'WAIT' : 'WAITAOF';
  throw new RespireProtocolError(`unexpected ${name} reply: ${String(reply)}`);
}

/** Whether the confirmations meet what the options asked for. */
function enough(ack: Acknowledgement, options: DurableOptions): boolean {
  if (ack.replicas < options.replicas) return false;
  if (options.aofLocal === true && (ack.aofLocal ?? 0) < 1) return false;
  return options.aofReplicas === undefined || (ack.aofReplicas ?? 0) >= options.aofReplicas;
}

export function reportOf(
  writes: readonly Command<unknown>[],
  outcomes: readonly { failed: boolean; value?: unknown; error?: unknown }[],
  acknowledgement: Acknowledgement | Error | undefined,
  options: DurableOptions,
): DurableReport {
  const ack = acknowledgement instanceof Error ? undefined : acknowledgement;
  const confirmed = ack !== undefined && enough(ack, options);
  const reports = writes.map((_, index): DurableWriteReport => {
    const outcome = outcomes[index]!;
    return {
      applied: !outcome.failed,
      ...(outcome.failed ? { error: outcome.error } : { value: outcome.value }),
      acknowledged: !outcome.failed && confirmed,
      replicas: ack?.replicas ?? null,
      aofLocal: ack?.aofLocal ?? null,
      aofReplicas: ack?.aofReplicas ?? null,
    };
  });
  return {
    writes: reports,
    acknowledged: reports.length > 0 && reports.every((report) => report.acknowledged),
    acknowledgementError: acknowledgement instanceof Error ? acknowledgement : undefined,
  };
}
