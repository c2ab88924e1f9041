// `redis.getStream(key)` (issue 13 "Streamed values"): GET on a dedicated connection, the value's
// bytes handed to the reader as they arrive and never held whole. Backpressure pauses reading that
// connection's socket. A stream read to its end gives the connection back clean; one destroyed
// before its reply ended closes it, so no later command can read the rest of the value.
//
// Circuit (seed 000 "No health outcome"): a streamed GET cancelled or destroyed before its reply
// ends records no outcome (and frees a probe slot); a reply that ended records success (read to the
// end or not: its last byte arrived); an error reply (WRONGTYPE) is a reply, so a success; a lost
// or silent connection is a failure.
import { Readable } from 'node:stream';
import {
  RespireConfigurationError,
  RespireError,
  RespireProtocolError,
  RespireServerError,
} from '../../errors.js';
import { RespDecoder } from '../../resp/decoder.js';
import { encodeCommand } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import { Health } from '../../transport/health.js';
import type { RedisArgument } from '../commands/caller.js';
import { isRedirect, redirectedTo } from '../node/data-redirect.js';
import type { EndpointNode } from '../node/endpoint-node.js';
import { invalidTimeout, isTimeout } from '../prepare-command.js';
import { RawExchange, type StreamSettings } from './raw-exchange.js';

/** `redis.getStream(key, options)`. */
export interface GetStreamOptions {
  /** Aborting destroys the stream with `signal.reason` (no outcome recorded; connection closed). */
  signal?: AbortSignal | undefined;
  /**
   * How long the server may stay silent, ms: before the reply starts, and between reads while the
   * stream is not paused by its reader. Default `commandTimeout`; 0 = none.
   */
  timeout?: number | undefined;
  /** Bytes the stream buffers before it pauses the socket (Readable `highWaterMark`). Default 64 KiB. */
  highWaterMark?: number | undefined;
}

const DEFAULT_HIGH_WATER_MARK = 64 * 1024;
/** `$536870912\r\n` and a little room: a longer length line is not a GET reply. */
const MAX_HEADER_BYTES = 32;
const DOLLAR = 0x24;
const CR = 0x0d;
const LF = 0x0a;

type Phase = 'header' | 'other' | 'body' | 'trailer' | 'ended';

/**
 * A Readable of the value's bytes (and so an async iterable of Buffers). `valueLength` resolves
 * once the reply starts: the value's byte length, or null when the key does not exist (the stream
 * then ends empty). Errors: the server's error reply (a RespireServerError), a lost or silent
 * connection, a circuit rejection (nothing sent), `signal.reason`.
 */
export class ValueStream extends Readable {
  /** The value's length in bytes, or null for a missing key; rejects when the stream fails first. */
  readonly valueLength: Promise<number | null>;
  private settleLength!: (length: number | null) => void;
  private failLength!: (error: unknown) => void;
  private exchange: RawExchange | undefined;
  private phase: Phase = 'header';
  private header: Buffer[] = [];
  private headerBytes = 0;
  private remaining = 0;
  private trailerSeen = 0;
  /** Decodes a reply that is not a bulk string (an error, a RESP3 null). */
  private other: RespDecoder | undefined;
  /** The server's error reply, which ends the stream once the connection is given back. */
  private replyError: RespireServerError | undefined;
  private readonly timeoutMs: number;
  /** Cluster: redirects followed, and the ASKING whose `OK` comes before the GET's reply. */
  private hops = 0;
  private askingOk = false;
  /** A MOVED or ASK answered the GET: it is sent again where the router says once the reply ended. */
  private redirect: RespireServerError | undefined;

  /** @internal Use `redis.getStream(key, options)`. */
  constructor(
    private node: EndpointNode | Error,
    private readonly key: RedisArgument,
    private readonly settings: StreamSettings,
    private readonly options: GetStreamOptions = {},
  ) {
    const { highWaterMark } = options;
    super({ highWaterMark: isByteCount(highWaterMark) ? highWaterMark : DEFAULT_HIGH_WATER_MARK });
    this.valueLength = new Promise((resolve, reject) => {
      this.settleLength = resolve;
      this.failLength = reject;
    });
    this.valueLength.catch(ignore);
    const timeout = options.timeout ?? settings.commandTimeout;
    this.timeoutMs = isTimeout(timeout) ? timeout : 0;
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** @internal Readable hook: borrows a dedicated connection, takes admission and sends GET. */
  override _construct(callback: (error?: Error | null) => void): void {
    this.start().then(() => callback(), callback);
  }

  /** @internal Readable hook: the reader wants more, so the socket resumes. */
  override _read(): void {
    this.exchange?.resume();
  }

  /** @internal Readable hook: destroyed before the reply ended, the connection closes and no outcome is recorded. */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.options.signal?.removeEventListener('abort', this.onAbort);
    // Before the reply ended: cancelled, nothing recorded; the connection cannot be reused.
    this.exchange?.report(Health.None);
    this.exchange?.close();
    this.failLength(
      error ?? new RespireError('getStream: the stream was destroyed before the value started'),
    );
    callback(error);
  }

  private async start(): Promise<void> {
    const { options, node } = this;
    if (options.timeout !== undefined && !isTimeout(options.timeout)) throw invalidTimeout(options.timeout);
    if (options.highWaterMark !== undefined && !isByteCount(options.highWaterMark)) {
      throw new RespireConfigurationError(
        'highWaterMark',
        options.highWaterMark,
        'an integer number of bytes, at least 1',
      );
    }
    if (node instanceof Error) throw node;
    await this.sendOn(node, false);
  }

  /** Borrows a connection of `node`, takes admission and sends GET (ASKING first after an ASK). */
  private async sendOn(node: EndpointNode, asking: boolean): Promise<void> {
    const { options } = this;
    options.signal?.throwIfAborted();
    const exchange = await RawExchange.borrow(
      node,
      this.settings.clock,
      'GET',
      (error) => this.destroy(error),
      options.signal,
    );
    if (this.destroyed) {
      exchange.giveBack();
      return;
    }
    exchange.admit();
    this.exchange = exchange;
    exchange.readInto(this.onBytes);
    // Seed 000 "Redis Cluster": one admission covers ASKING and the command behind it.
    this.askingOk = asking;
    if (asking) exchange.write(encodeCommand(['ASKING']));
    exchange.write(encodeCommand(['GET', this.key]));
    exchange.expectWithin(this.timeoutMs);
  }

  private readonly onAbort = (): void => {
    this.destroy(this.options.signal?.reason);
  };

  /** Every read of the connection while the stream owns it; never throws. */
  private readonly onBytes = (chunk: Buffer): void => {
    try {
      this.consume(chunk);
    } catch (error) {
      this.exchange?.fail(
        error instanceof RespireProtocolError
          ? error
          : new RespireProtocolError(`cannot read the streamed value: ${String(error)}`, {
              endpoint: this.node instanceof Error ? undefined : this.node.endpoint,
              cause: error,
            }),
      );
    }
  };

  private consume(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.phase === 'ended') throw this.malformed('nothing after the reply');
      switch (this.phase) {
        case 'header':
          at = this.takeHeader(chunk, at);
          break;
        case 'other':
          // Byte by byte (such frames are short), so that a push frame's end is known exactly; a
          // copy, since the decoder may keep it past this read of a reused socket buffer.
          this.other!.write(Buffer.from(chunk.subarray(at, at + 1)));
          at++;
          break;
        case 'body': {
          const end = Math.min(chunk.length, at + this.remaining);
          this.remaining -= end - at;
          // A copy: the socket's read buffer is reused once the decoder would have released it.
          const more = this.push(Buffer.from(chunk.subarray(at, end)));
          at = end;
          if (this.remaining === 0) this.phase = 'trailer';
          else if (!more) this.exchange!.pause();
          break;
        }
        case 'trailer':
          if (chunk[at] !== (this.trailerSeen === 0 ? CR : LF))
            throw this.malformed('a CRLF after the value');
          at++;
          if (++this.trailerSeen === 2) this.replyEnded();
          break;
      }
    }
    if (this.phase !== 'ended') return;
    // The reply's last byte, and nothing after it: the connection is clean again. A whole reply is
    // a healthy endpoint, whether or not the reader then reads it to its end (seed 000: only a
    // stream cancelled before its reply ends records nothing).
    this.exchange!.report(Health.Success);
    this.exchange!.giveBack();
    if (this.redirect !== undefined) this.follow(this.redirect);
    else if (this.replyError !== undefined) this.destroy(this.replyError);
    else this.push(null);
  }

  /** Reads the first line: `$<length>` streams; anything else is decoded whole (short). */
  private takeHeader(chunk: Buffer, at: number): number {
    if (this.headerBytes === 0 && chunk[at] !== DOLLAR) {
      this.phase = 'other';
      this.other = new RespDecoder({
        onReply: this.onOtherReply,
        // A push ahead of the reply (RESP3 tracking) is not the reply: read the header after it.
        onPush: () => {
          this.phase = 'header';
        },
      });
      return at;
    }
    const lf = chunk.indexOf(LF, at);
    const end = lf === -1 ? chunk.length : lf + 1;
    this.header.push(chunk.subarray(at, end));
    this.headerBytes += end - at;
    if (this.headerBytes > MAX_HEADER_BYTES) throw this.malformed('a short bulk string length');
    if (lf === -1) return end;
    const line = Buffer.concat(this.header).toString('latin1');
    this.header = [];
    const length = /^\$(-1|0|[1-9][0-9]*)\r\n$/.exec(line);
    if (length === null) throw this.malformed('a bulk string length');
    const bytes = Number(length[1]);
    if (bytes === -1) {
      this.settleLength(null);
      this.replyEnded();
      return end;
    }
    this.settleLength(bytes);
    this.remaining = bytes;
    this.phase = bytes === 0 ? 'trailer' : 'body';
    return end;
  }

  /** A reply that is not a bulk string: a null (missing key) or an error reply, decoded whole. */
  private readonly onOtherReply = (value: RespValue): void => {
    if (this.phase === 'ended') throw this.malformed('nothing after the reply');
    if (this.askingOk && value === 'OK') {
      // ASKING's answer: the GET's reply comes next.
      this.askingOk = false;
      this.phase = 'header';
    } else if (value === null) {
      this.settleLength(null);
      this.replyEnded();
    } else if (value instanceof RespireServerError) {
      this.phase = 'ended';
      if (this.settings.redirect !== undefined && isRedirect(value)) this.redirect = value;
      else this.replyError = value;
      this.exchange!.report(Health.Success);
    } else {
      throw this.malformed('a GET reply');
    }
  };

  /**
   * Cluster: the GET met a MOVED or ASK, so nothing of the value was read. It goes where the router
   * says, on a connection of that node; one the router does not follow ends the stream with it.
   */
  private follow(error: RespireServerError): void {
    this.redirect = undefined;
    this.exchange = undefined;
    this.phase = 'header';
    this.other = undefined;
    const from = this.node as EndpointNode;
    redirectedTo(this.settings.redirect, error, ++this.hops, from)
      .then((next) => {
        if (this.destroyed) return;
        if (next === undefined) throw error;
        this.node = next.node;
        return this.sendOn(next.node, next.asking);
      })
      .catch((failure: unknown) => this.destroy(failure as Error));
  }

  /** The reply's last byte arrived (`consume` then ends the stream); success once it is read. */
  private replyEnded(): void {
    this.phase = 'ended';
  }

  private malformed(expected: string): RespireProtocolError {
    const endpoint = this.node instanceof Error ? undefined : this.node.endpoint;
    return new RespireProtocolError(`streamed GET: expected ${expected} from the server`, { endpoint });
  }
}

function ignore(): void {}

function isByteCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}
