// `redis.setFromStream(key, source, { length })` (issue 13 "Streamed values"): SET whose value is
// written from a stream as it is produced, never held whole, on a dedicated connection. The bulk
// string's length goes out first, so a source that ends early, gives too much or fails leaves the
// server waiting for bytes that never come: the connection is then closed, and Redis drops the
// unfinished command, so it never stores a truncated value.
//
// Deadlines (seed 000: "Streamed uploads keep their usual command deadline"): the reply must come
// within `timeout` (default `commandTimeout`) of the last byte, and a server that takes no bytes for
// that long while the socket waits to drain fails the upload too. A slow source is the caller's:
// bound it with `signal`.
//
// Circuit: admitted once, right before the first byte; a source failure, an early end and an
// abort record no outcome (seed 000 "serializer and source exceptions"); a reply (error replies
// included) is a success; a lost or silent connection is a failure.
import {
  RespireConfigurationError,
  RespireError,
  RespireProtocolError,
  RespireServerError,
} from '../../errors.js';
import { RespDecoder } from '../../resp/decoder.js';
import type { RespValue } from '../../resp/types.js';
import { Health } from '../../transport/health.js';
import type { RedisArgument } from '../commands/caller.js';
import { isRedirect } from '../node/data-redirect.js';
import type { EndpointNode } from '../node/endpoint-node.js';
import { invalidTimeout, isTimeout } from '../prepare-command.js';
import { RawExchange, type StreamSettings } from './raw-exchange.js';
import { movedDuringUpload, uploadOwner } from './upload-owner.js';

/** What `setFromStream` reads the value from: Buffers, Uint8Arrays or (UTF-8) strings. */
export type ValueSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** `redis.setFromStream(key, source, options)`. */
export interface SetFromStreamOptions {
  /** The value's exact length in bytes (required): written before the first byte of the value. */
  length: number;
  /**
   * Aborting closes the connection and rejects with `signal.reason`. Before the value's last byte
   * is written nothing is stored; after it, Redis has the whole command and may have stored it.
   */
  signal?: AbortSignal | undefined;
  /** Reply deadline after the last byte, and longest wait for the socket to drain, ms. 0 = none. */
  timeout?: number | undefined;
  /** `NX`: only when the key is missing; `XX`: only when it exists. */
  condition?: 'NX' | 'XX' | undefined;
  /** `PX`: the key expires this many ms after the SET. */
  expireMs?: number | undefined;
}

/**
 * Runs one streamed SET; resolves true when Redis stored the value, false when `condition` kept it
 * from doing so.
 */
export async function uploadValue(
  target: EndpointNode | Error,
  key: RedisArgument,
  source: ValueSource,
  settings: StreamSettings,
  options: SetFromStreamOptions,
): Promise<boolean> {
  const tail = checkedOptions(options);
  const timeoutMs = options.timeout ?? settings.commandTimeout;
  if (target instanceof Error) throw target;
  options.signal?.throwIfAborted();
  const { node, asking } = await uploadOwner(target, key, settings, options.signal, timeoutMs);
  let failed: ((error: Error) => void) | undefined;
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  failure.catch(ignore);
  const exchange = await RawExchange.borrow(
    node,
    settings.clock,
    'SET',
    (error) => failed!(error),
    options.signal,
  );
  const reply = replyReader(exchange, asking);
  exchange.admit();
  const aborted = abortWatch(options.signal);
  try {
    // Seed 000 "Redis Cluster": one admission covers ASKING and the SET behind it.
    if (asking) exchange.write(ASKING);
    exchange.write(header(key, options.length, tail.length));
    const writing = writeValue(exchange, source, options.length, timeoutMs);
    // When the connection fails or the signal aborts first, the loop stops at its next step.
    writing.catch(ignore);
    // Redis answers before the value only to refuse it (a length above proto-max-bulk-len), then
    // closes: that reply, not the close after it, is the upload's answer.
    const early = reply.promise.then((value) => new EarlyReply(value));
    early.catch(ignore);
    const sent = await Promise.race([writing, failure, aborted.promise, early]);
    if (sent instanceof EarlyReply) {
      exchange.report(Health.Success);
      exchange.close();
      throw sent.value instanceof RespireServerError
        ? sent.value
        : new RespireProtocolError('setFromStream: the server answered before the value was sent', {
            endpoint: node.endpoint,
          });
    }
    if (sent < options.length) throw sourceError(`ended after ${sent} of ${options.length} bytes`, node);
    exchange.write(trailer(tail));
    exchange.expectWithin(timeoutMs);
    const value = await Promise.race([reply.promise, failure, aborted.promise]);
    exchange.report(Health.Success);
    exchange.giveBack();
    if (isRedirect(value)) throw movedDuringUpload(value, node);
    if (value instanceof RespireServerError) throw value;
    return value !== null;
  } catch (error) {
    // Anything but the connection's own failure (already recorded): a source failure, an early
    // end, an abort, or the reply read wrongly. Nothing is recorded; the connection is closed.
    exchange.report(Health.None);
    exchange.close();
    throw error;
  } finally {
    aborted.stop();
  }
}

/** A reply that came while the value was still being written. */
class EarlyReply {
  constructor(readonly value: RespValue) {}
}

/** Writes the value from `source`, waiting for the socket to drain; returns the bytes written. */
async function writeValue(
  exchange: RawExchange,
  source: ValueSource,
  length: number,
  timeoutMs: number,
): Promise<number> {
  let sent = 0;
  // No deadline while the source is producing: a slow source is not a slow server.
  try {
    for await (const piece of source) {
      if (exchange.finished) break;
      const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
      if (!(bytes instanceof Uint8Array))
        throw new TypeError(
          'setFromStream: the source gave a chunk that is not a Buffer, Uint8Array or string',
        );
      if (sent + bytes.length > length) {
        throw sourceError(`gave more than the ${length} bytes announced`, exchange);
      }
      sent += bytes.length;
      if (bytes.length !== 0 && !exchange.write(bytes)) await exchange.drained(timeoutMs);
    }
  } catch (error) {
    if (error instanceof RespireError) throw error;
    throw sourceError(`failed after ${sent} of ${length} bytes`, exchange, error);
  }
  return sent;
}

/**
 * The reply, decoded once the value is written; the server answers nothing before that (but
 * ASKING's `OK`, which comes first and is not the reply).
 */
function replyReader(exchange: RawExchange, asking: boolean): { promise: Promise<RespValue> } {
  let settle!: (value: RespValue) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<RespValue>((resolve, fail) => {
    settle = resolve;
    reject = fail;
  });
  promise.catch(ignore);
  let replies = asking ? -1 : 0;
  const decoder = new RespDecoder({
    onReply: (value) => {
      if (replies === -1 && value === 'OK') {
        replies = 0;
        return;
      }
      if (++replies > 1) throw new Error('a second reply');
      settle(value);
    },
    // A push (RESP3 tracking) is not the reply.
    onPush: ignore,
  });
  exchange.readInto((chunk) => {
    try {
      decoder.write(chunk);
    } catch (error) {
      const endpoint = exchange.endpoint;
      const failure = new RespireProtocolError(`setFromStream: expected one SET reply from the server`, {
        endpoint,
        cause: error,
      });
      reject(failure);
      exchange.fail(failure);
    }
  });
  return { promise };
}

/** The arguments after the value: `NX`/`XX` and `PX ms`. Throws RespireConfigurationError. */
function checkedOptions(options: SetFromStreamOptions): string[] {
  const { length, condition, expireMs, timeout } = options;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw new RespireConfigurationError('length', length, 'an integer number of bytes, at least 0');
  }
  if (timeout !== undefined && !isTimeout(timeout)) throw invalidTimeout(timeout);
  const tail: string[] = [];
  if (condition !== undefined) {
    if (condition !== 'NX' && condition !== 'XX') {
      throw new RespireConfigurationError('condition', condition, "'NX' or 'XX'");
    }
    tail.push(condition);
  }
  if (expireMs !== undefined) {
    if (!Number.isSafeInteger(expireMs) || expireMs < 1) {
      throw new RespireConfigurationError('expireMs', expireMs, 'an integer number of ms, at least 1');
    }
    tail.push('PX', String(expireMs));
  }
  return tail;
}

/** `*N`, `SET`, the key and the value's length line: everything before the value's first byte. */
function header(key: RedisArgument, length: number, tailCount: number): Buffer {
  const keyBytes = typeof key === 'string' ? Buffer.from(key) : key;
  return Buffer.concat([
    Buffer.from(`*${3 + tailCount}\r\n$3\r\nSET\r\n$${keyBytes.length}\r\n`),
    keyBytes,
    Buffer.from(`\r\n$${length}\r\n`),
  ]);
}

/** The CRLF that ends the value, then the arguments after it. */
function trailer(tail: readonly string[]): string {
  let text = '\r\n';
  for (const arg of tail) text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return text;
}

function sourceError(
  what: string,
  at: { endpoint: EndpointNode['endpoint'] },
  cause?: unknown,
): RespireError {
  return new RespireError(
    `setFromStream: the source ${what}; the connection was closed, so Redis stores nothing`,
    { endpoint: at.endpoint, cause },
  );
}

/** A promise that rejects with the signal's reason when it aborts; `stop` removes the listener. */
function abortWatch(signal: AbortSignal | undefined): { promise: Promise<never>; stop(): void } {
  if (signal === undefined) return { promise: new Promise<never>(ignore), stop: ignore };
  let onAbort = ignore;
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(ignore);
  return { promise, stop: () => signal.removeEventListener('abort', onAbort) };
}

const ASKING = '*1\r\n$6\r\nASKING\r\n';

function ignore(): void {}
