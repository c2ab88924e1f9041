// The health class of a command's outcome (seed 000 "Health classification"), decided here once
// for every send path. The circuit breaker records what this says; nothing else classifies.
import {
  RespireAuthenticationError,
  RespireCircuitOpenError,
  RespireConnectionError,
  RespireProtocolError,
  RespireServerError,
  RespireTimeoutError,
} from '../errors.js';

export const Health = {
  /** A reply arrived, error replies (WRONGTYPE, NOPERM, …) included. */
  Success: 0,
  /** The endpoint failed the command: connection, protocol or reply-deadline failure. */
  Failure: 1,
  /** Nothing to learn about the endpoint: cancellation, capacity wait, serializer errors, … */
  None: 2,
} as const;
export type Health = (typeof Health)[keyof typeof Health];

/** How a command that ended with `error` reflects on its endpoint's health. */
export function healthOf(error: unknown): Health {
  if (error instanceof RespireServerError) return Health.Success;
  if (error instanceof RespireAuthenticationError || error instanceof RespireCircuitOpenError)
    return Health.None;
  if (error instanceof RespireConnectionError || error instanceof RespireProtocolError) return Health.Failure;
  if (error instanceof RespireTimeoutError) return error.phase === 'acquire' ? Health.None : Health.Failure;
  // An abort reason, a TypeError from an argument or a reply conversion, a configuration error.
  return Health.None;
}
