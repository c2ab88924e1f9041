// `redis.importHash(key, entries, options)` (issue 13 "Hash imports"): a very large hash written
// from an iterable or async iterable of `[field, value]`, `chunkFields` fields per HSET, each chunk
// in a MULTI/EXEC of its own on one dedicated connection, one transaction at a time.
//
// With `replace`, the chunks go to a temporary key in the key's hash slot, and the last transaction
// RENAMEs it over the key: a reader sees the old hash or the complete new one, never a part. The
// temporary key expires after an hour without a chunk, so an import that dies leaves nothing for
// long. Without `replace`, fields are added to the key chunk by chunk (each chunk atomic).
//
// Circuit (seed 000 "Hash imports check entries in connection order; a rejection before sending
// keeps the session and its prepared fieldsets"): each transaction is admitted once, right before
// its MULTI is written, in order on the import's connection. A rejection sent nothing: `run()`
// rejects with the RespireCircuitOpenError, `resumable` is true, and the import keeps its
// connection and the chunks it already read from `entries`; calling `run()` again resumes with
// the rejected chunk. Import transactions never move to another connection.
import {
  RespireCircuitOpenError,
  RespireConfigurationError,
  RespireConnectionError,
  RespireError,
  RespireServerError,
} from '../../errors.js';
import type { RespArgument } from '../../resp/encoder.js';
import type { Channel } from '../../transport/channel.js';
import { Command, CommandFlags } from '../../transport/command.js';
import type { Clock } from '../../util/clock.js';
import { describeEndpoint } from '../../util/describe-endpoint.js';
import type { RandomSource } from '../../util/random.js';
import { untilAborted } from '../../util/until-aborted.js';
import type { RedisArgument } from '../commands/caller.js';
import { enqueueAsked } from '../node/asking-prefix.js';
import { borrowUntilAbort } from '../node/borrow-until-abort.js';
import type { DataRedirect } from '../node/data-redirect.js';
import { isRedirect, redirectedTo } from '../node/data-redirect.js';
import type { EndpointNode } from '../node/endpoint-node.js';
import { invalidTimeout, isTimeout } from '../prepare-command.js';
import { Transaction } from '../transactions/multi.js';
import { type EntrySource, FieldChunks } from './field-chunks.js';
import { keepsSlot, temporaryKey } from './import-key.js';

/** `redis.importHash(key, entries, options)`. */
export interface ImportHashOptions {
  /** Fields per HSET transaction, 1 through 1,000,000. */
  chunkFields: number;
  /** Replace the hash atomically (temporary key, RENAME at the end) instead of adding fields. */
  replace?: boolean | undefined;
  /** Stops the import before its next transaction (one whose MULTI is out still completes). */
  signal?: AbortSignal | undefined;
  /** Reply deadline of each transaction step, ms; default `commandTimeout`. */
  timeout?: number | undefined;
}

/** What a completed `HashImport.run()` resolves with. */
export interface HashImportResult {
  /** Fields written (HSET arguments, not necessarily new fields). */
  readonly fields: number;
  /** MULTI/EXEC transactions run. */
  readonly transactions: number;
}

/** What an import needs from the client. */
export interface ImportSettings {
  readonly commandTimeout: number;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** Deletes a temporary key an import leaves behind, through the client's usual path. */
  readonly deleteKey: (key: RespArgument) => void;
  /** Drops `key`'s client-side cache entry: the import wrote it around the client's send path. */
  readonly wroteKey: (key: RespArgument) => void;
  /** Cluster: where a MOVED or ASK sends the import's first transaction (node/data-redirect.ts). */
  readonly redirect: DataRedirect | undefined;
}

/** The import's connection was lost between transactions: nothing of the next one was sent. */
function connectionLost(node: EndpointNode, transactions: number): RespireConnectionError {
  // The client closed its connections to the node (close(), or a Sentinel primary replaced), or the
  // connection alone was lost (killed, reset).
  const what = node.dedicatedClosed
    ? 'was closed by the client (closed, or no longer using that node)'
    : 'was lost';
  return new RespireConnectionError(
    `importHash: the connection to ${describeEndpoint(node.endpoint)} ${what} after ${transactions} transactions; the import cannot move to another connection and ended`,
    { endpoint: node.endpoint, written: false },
  );
}

/** The client left the import's node (a failover group switched members) between transactions. */
function nodeLeft(node: EndpointNode, transactions: number, reason: Error): RespireConnectionError {
  return new RespireConnectionError(
    `importHash: the failover group switched away from ${describeEndpoint(node.endpoint)} after ${transactions} transactions had run there; the import ended, as its transactions stay on their connection: run a new import`,
    { endpoint: node.endpoint, written: false, cause: reason },
  );
}

const MAX_CHUNK_FIELDS = 1_000_000;
/** The temporary key expires after this long without a chunk (PEXPIRE in every transaction). */
const TEMPORARY_TTL_MS = 3_600_000;

type ImportState = 'ready' | 'running' | 'rejected' | 'done' | 'failed';

/**
 * A hash import made by `redis.importHash`: nothing is sent until `run()`, which writes the fields
 * in HSET transactions on a dedicated connection, and resumes after a circuit rejection.
 */
export class HashImport {
  private state: ImportState = 'ready';
  private channel: Channel | undefined;
  private readonly chunks: FieldChunks;
  private readonly target: RespArgument;
  private fields = 0;
  private transactions = 0;
  /** A transaction was handed to the connection (it may have run even if it failed). */
  private sentAny = false;
  private readonly timeoutMs: number;
  /** Cluster: redirects followed, and ASKING before every MULTI once the first one met ASK. */
  private hops = 0;
  private asking = false;
  /** The node's last `leave()` when the import borrowed its connection there (EndpointNode.departure). */
  private departure: { readonly reason: Error } | undefined;

  /** Where the import's first transaction goes: the key's node as the router sees it then. */
  private node: EndpointNode | Error;

  /** @internal Use `redis.importHash(key, entries, options)`. */
  constructor(
    /**
     * The key's node now (a failover switch, a Sentinel primary change moves it): asked again when
     * `run()` starts with nothing sent yet, since the import may run long after it was made.
     */
    private readonly locate: () => EndpointNode | Error,
    /** The hash written (with `replace`, the key renamed over at the end). */
    readonly key: RedisArgument,
    entries: EntrySource,
    private readonly settings: ImportSettings,
    private readonly options: ImportHashOptions,
    /** A key-prefixed view's prefix (`key` has it already): the temporary key's name starts with it. */
    prefix?: string | Buffer,
  ) {
    const { chunkFields, timeout } = options;
    if (!Number.isSafeInteger(chunkFields) || chunkFields < 1 || chunkFields > MAX_CHUNK_FIELDS) {
      throw new RespireConfigurationError(
        'chunkFields',
        chunkFields,
        `an integer from 1 through ${MAX_CHUNK_FIELDS}`,
      );
    }
    if (timeout !== undefined && !isTimeout(timeout)) throw invalidTimeout(timeout);
    this.timeoutMs = timeout ?? settings.commandTimeout;
    this.node = locate();
    this.chunks = new FieldChunks(entries, chunkFields);
    this.target = options.replace === true ? temporaryKey(key, settings.random, prefix) : key;
  }

  /** True after a circuit rejection that sent nothing: `run()` again resumes the import. */
  get resumable(): boolean {
    return this.state === 'rejected';
  }

  /** Fields written so far (in transactions that completed). */
  get fieldsWritten(): number {
    return this.fields;
  }

  /**
   * Runs the import, or resumes it after a circuit rejection. Resolves once every field is written
   * (and, with `replace`, the key replaced); the connection then goes back to the pool. Any other
   * failure ends the import: its temporary key is deleted, its connection given back or closed.
   */
  async run(): Promise<HashImportResult> {
    if (this.state !== 'ready' && this.state !== 'rejected') {
      throw new TypeError(
        `importHash: the import has ${this.state === 'running' ? 'not finished' : 'ended'}; run() resumes only after a circuit rejection`,
      );
    }
    this.state = 'running';
    // Nothing borrowed or sent yet: the import goes where the key's commands go now, not where
    // they went when it was made (README "Failover group": what was never written moves).
    if (this.channel === undefined && this.transactions === 0 && this.hops === 0) this.node = this.locate();
    try {
      await this.writeChunks();
    } catch (error) {
      // Read your writes: chunks that landed, or a transaction that may have, leave the cache.
      if (this.sentAny) this.settings.wroteKey(this.key);
      if (error instanceof RespireCircuitOpenError) {
        this.state = 'rejected';
      } else {
        this.end('failed');
      }
      throw error;
    }
    this.settings.wroteKey(this.key);
    this.end('done');
    return { fields: this.fields, transactions: this.transactions };
  }

  /** Gives up an import that is not running: deletes its temporary key, frees its connection. */
  abandon(): void {
    if (this.state === 'ready' || this.state === 'rejected') this.end('failed');
  }

  private async writeChunks(): Promise<void> {
    const replace = this.options.replace === true;
    for (;;) {
      const node = this.node;
      if (node instanceof Error) throw node;
      this.options.signal?.throwIfAborted();
      // A source that stalls (a paginated API that never answers) must not outlive the signal.
      const chunk = await untilAborted(this.chunks.peek(), this.options.signal);
      const last = await untilAborted(this.chunks.isLastPeeked(), this.options.signal);
      if (chunk === undefined && !(replace && this.transactions === 0)) return;
      // Dedicated connections never reconnect: one lost since the last transaction (killed while
      // the entries were read, reset by the blip that opened the circuit) ends the session, and
      // the import with it, before any admission: no rejection may say it can resume.
      if (this.channel !== undefined && this.channel.current === undefined)
        throw connectionLost(node, this.transactions);
      // A failover group switched away from the node since the import began there: its later
      // transactions would write to the deployment the group left (the group's WATCH sessions end
      // too). Nothing more is sent; the import ends saying so.
      if (this.channel !== undefined && node.departure !== this.departure) {
        throw nodeLeft(node, this.transactions, node.departure!.reason);
      }
      // A connection is borrowed only for a transaction to send (a rejection here sent nothing).
      if (this.channel === undefined) {
        this.departure = node.departure;
        this.channel = await borrowUntilAbort(node.lender, this.options.signal);
      }
      const tx = new Transaction({
        target: this.channel,
        commandTimeout: this.timeoutMs,
        clock: this.settings.clock,
        watched: false,
        asking: this.asking,
      });
      if (chunk !== undefined) tx.send(['HSET', this.target, ...chunk]);
      // Cluster: a temporary key that cannot be in the key's slot (import-key.ts) makes the final
      // RENAME fail; naming both keys has the server refuse the first transaction instead (MOVED,
      // or CROSSSLOT when the other slot is on the same node), before any chunk is written.
      if (
        replace &&
        chunk !== undefined &&
        this.transactions === 0 &&
        this.settings.redirect !== undefined &&
        !keepsSlot(this.key)
      )
        tx.send(['TOUCH', this.target, this.key]);
      if (replace && last) {
        if (chunk === undefined) tx.send(['DEL', this.key]);
        else {
          tx.send(['RENAME', this.target, this.key]);
          tx.send(['PERSIST', this.key]);
        }
      } else if (replace) tx.send(['PEXPIRE', this.target, String(TEMPORARY_TTL_MS)]);
      this.sentAny = true;
      let results: unknown[] | null;
      try {
        results = await tx.exec({ signal: this.options.signal });
      } catch (error) {
        if (await this.redirected(error, node)) continue;
        throw error;
      }
      // An entry that failed inside EXEC (WRONGTYPE: the key holds another type) wrote nothing of
      // the chunk, though the transaction ran: the import fails with that error reply.
      const failed = (results ?? []).find((result) => result instanceof RespireServerError);
      if (failed !== undefined) throw failed;
      this.chunks.take();
      this.transactions++;
      this.fields += chunk === undefined ? 0 : chunk.length / 2;
      if (last) return;
    }
  }

  /**
   * Cluster: an EXEC aborted by MOVED or ASK ran nothing. The first transaction goes where the router
   * says, on a connection of that node (ASKING before every later MULTI after an ASK: the slot is
   * being imported there). A later one cannot follow: the chunks that ran are on `node`, and the
   * slot has moved from under the import, which fails saying so. An EXEC aborted by TRYAGAIN is
   * sent again where it was, after the backoff.
   */
  private async redirected(error: unknown, node: EndpointNode): Promise<boolean> {
    const cause = error instanceof RespireServerError && error.code === 'EXECABORT' ? error.cause : undefined;
    if (cause instanceof RespireServerError && cause.code === 'TRYAGAIN') {
      // A multi-key command of a migrating slot whose keys are split (the RENAME over a key still
      // on the source): nothing of it ran, and the chunks that did are on this node. The same
      // transaction goes again on the same connection once the router's backoff passed.
      return (await redirectedTo(this.settings.redirect, cause, ++this.hops, node)) !== undefined;
    }
    // A temporary key outside the key's slot would be written on another node and never renamed
    // over the key: its MOVED reaches the caller, nothing written (import-key.ts).
    if (!isRedirect(cause) || (this.options.replace === true && !keepsSlot(this.key))) return false;
    if (this.transactions > 0) {
      throw new RespireError(
        `importHash: ${cause.message} after ${this.transactions} transactions had run on ${describeEndpoint(node.endpoint)}: the slot moved during the import, which cannot follow it; the import ended`,
        { endpoint: node.endpoint, cause: error },
      );
    }
    const next = await redirectedTo(this.settings.redirect, cause, ++this.hops, node);
    if (next === undefined) return false;
    // Nothing ran: the connection is clean (EXEC closed the transaction) and nothing is left behind.
    node.lender.release(this.channel!);
    this.channel = undefined;
    this.sentAny = false;
    this.node = next.node;
    this.asking = next.asking;
    return true;
  }

  private end(state: 'done' | 'failed'): void {
    this.state = state;
    this.chunks.close();
    const { channel, node } = this;
    this.channel = undefined;
    // A replacing import that sent a transaction may have left its temporary key (which expires).
    const leftover = state === 'failed' && this.options.replace === true && this.sentAny;
    if (channel === undefined || node instanceof Error || channel.current === undefined) {
      if (channel !== undefined && !(node instanceof Error)) node.lender.discard(channel);
      if (leftover) this.settings.deleteKey(this.target);
      return;
    }
    if (!leftover) {
      node.lender.release(channel);
      return;
    }
    // On the import's own connection, after any transaction still in flight there (an abort after
    // MULTI was written), so that no chunk lands after the DEL. After an ASK the chunks are on the
    // slot's importing node, which answers a DEL without ASKING with MOVED.
    const flags = this.asking ? CommandFlags.TransactionStep : 0;
    const remove = new Command(['DEL', this.target], flags, undefined, undefined, this.timeoutMs);
    if (this.asking) enqueueAsked(channel, remove as Command<unknown>);
    else channel.enqueue(remove as Command<unknown>);
    const giveBack = (): void => {
      if (channel.current === undefined) node.lender.discard(channel);
      else node.lender.release(channel);
    };
    remove.promise.then(giveBack, giveBack);
  }
}
