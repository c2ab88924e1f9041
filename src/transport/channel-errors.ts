// What a channel's commands fail with when they cannot be written: the client closed, no room in
// the send queue in time, or no connection to be had (nothing was sent in any of them); and the
// sweep that fails the ones whose acquire deadline passed.

import {
  RespireAuthenticationError,
  RespireConnectionError,
  type RespireEndpoint,
  type RespireError,
  RespireTimeoutError,
} from '../errors.js';
import { describeEndpoint } from '../util/describe-endpoint.js';
import type { RingQueue } from '../util/ring-queue.js';
import { type Command, CommandState } from './command.js';

/** What a command or caller gets once the client is closed: never written, nothing to retry. */
export function clientClosedError(endpoint: RespireEndpoint): RespireConnectionError {
  return new RespireConnectionError('the client is closed', { endpoint, written: false });
}

/**
 * The connection was lost and the channel does not reconnect (`reconnect: false`, a dedicated
 * connection): what is sent to it afterwards. Not "the client is closed": the client is open.
 */
export function lostForGoodError(
  endpoint: RespireEndpoint,
  cause: RespireError | undefined,
): RespireConnectionError {
  const message = `the connection to ${describeEndpoint(endpoint)} was lost and is not reopened`;
  return new RespireConnectionError(message, { endpoint, cause, written: false });
}

/** No room in the send queue within `timeoutMs` (0: none right now, past the waiters' bound). */
export function acquireError(endpoint: RespireEndpoint, timeoutMs: number): RespireTimeoutError {
  return new RespireTimeoutError(
    `no room in the send queue of ${describeEndpoint(endpoint)} within ${timeoutMs} ms`,
    'acquire',
    { endpoint, timeoutMs, written: false },
  );
}

/**
 * No connection could be had: nothing was sent. A RespireAuthenticationError when the last
 * attempt was refused its credentials, so the caller sees the cause (and never retries it).
 */
export function unreachableError(
  endpoint: RespireEndpoint,
  cause: RespireError | undefined,
): RespireConnectionError {
  const message = `no connection to ${describeEndpoint(endpoint)}${cause ? `: ${cause.message}` : ''}`;
  const details = { endpoint, cause, written: false };
  return cause instanceof RespireAuthenticationError
    ? new RespireAuthenticationError(message, details)
    : new RespireConnectionError(message, details);
}

/** Set-up for a connection that ended before it was written. */
export function unwrittenSetupError(endpoint: RespireEndpoint): RespireConnectionError {
  return new RespireConnectionError('the connection closed before the command was written', {
    endpoint,
    written: false,
  });
}

/**
 * Fails the commands of `queue` whose acquire deadline passed, each with `failure(command)`, and
 * drops settled ones; returns the earliest deadline still outstanding (Infinity for none).
 */
export function expireAcquireDeadlines(
  queue: RingQueue<Command<unknown>>,
  now: number,
  failure: (command: Command<unknown>) => Error,
): number {
  let next = Number.POSITIVE_INFINITY;
  queue.filter((command) => {
    if (command.state === CommandState.Settled) return false;
    if (command.deadline === 0 || command.deadline > now) {
      if (command.deadline !== 0 && command.deadline < next) next = command.deadline;
      return true;
    }
    command.reject(failure(command));
    return false;
  });
  return next;
}
