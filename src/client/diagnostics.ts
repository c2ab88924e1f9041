// Respire's `node:diagnostics_channel` channels: commands, connections and circuit transitions.
// Channels are declared once; a message is built and published only while someone subscribes
// (`channel.hasSubscribers`), so with no subscriber the cost is a property read per channel: a
// command reads the three command channels' (undici's rule, STYLE.md). Messages never hold keys,
// arguments, replies or credentials.
//
// | channel                        | message                                                      |
// | ------------------------------ | ------------------------------------------------------------ |
// | `respire:command:start`        | CommandDiagnostic, before the command is queued              |
// | `respire:command:end`          | the same object, `durationMs` set, after a reply             |
// | `respire:command:error`        | the same object, `durationMs`, `error`, `errorType` set      |
// | `respire:connection:connect`   | ConnectionDiagnostic: a connection is ready (handshake done) |
// | `respire:connection:close`     | ConnectionDiagnostic: a connection ended                     |
// | `respire:connection:reconnect` | ReconnectDiagnostic: a reconnect attempt is scheduled        |
// | `respire:circuit:transition`   | CircuitTransitionDiagnostic: a circuit changed state         |
// | `respire:client:error`         | ClientErrorDiagnostic: an error no caller receives (below)   |
//
// Each traced command publishes `start`, then exactly one of `end` and `error`, with one message
// object, so a subscriber can pair them (a WeakMap keyed by the message, as with TracingChannel).
// Traced: the client's commands, batch entries, WATCH sessions' commands, and each transaction
// entry when `exec()` sends it, then `EXEC` for the whole transaction (`end` also when a WATCH
// conflict resolves it null). Internal commands (handshake, UNWATCH, DISCARD, QUIT) are not.

import { channel } from 'node:diagnostics_channel';
import type { CircuitState } from '../breaker/index.js';
import type { RespireEndpoint } from '../errors.js';
import type { Command } from '../transport/command.js';
import type { Clock } from '../util/clock.js';
import { describeEndpoint } from '../util/describe-endpoint.js';
import { errorTypeOf } from './metrics-tags.js';

/**
 * The names of Respire's `node:diagnostics_channel` channels, for `subscribe(name, listener)`.
 * Messages never hold keys, arguments, replies or credentials.
 */
export const DiagnosticChannels = Object.freeze({
  /** A CommandDiagnostic, before the command is queued. */
  commandStart: 'respire:command:start',
  /** The same CommandDiagnostic, `durationMs` set, after a reply. */
  commandEnd: 'respire:command:end',
  /** The same CommandDiagnostic, `durationMs`, `error` and `errorType` set, after a failure. */
  commandError: 'respire:command:error',
  /** A ConnectionDiagnostic: a connection is ready (handshake done). */
  connectionConnect: 'respire:connection:connect',
  /** A ConnectionDiagnostic: a connection ended. */
  connectionClose: 'respire:connection:close',
  /** A ReconnectDiagnostic: a reconnect attempt is scheduled. */
  connectionReconnect: 'respire:connection:reconnect',
  /** A CircuitTransitionDiagnostic: a circuit changed state. */
  circuitTransition: 'respire:circuit:transition',
  /** A ClientErrorDiagnostic: an error no caller receives. */
  clientError: 'respire:client:error',
} as const);

/** One command, from the caller issuing it to its promise settling. */
export interface CommandDiagnostic {
  /** The command's name as issued, upper-cased (`GET`, `CLIENT`); never its arguments. */
  readonly command: string;
  /** The data endpoint it was issued to. */
  readonly endpoint: RespireEndpoint;
  /** Milliseconds from `start` to settling; 0 in `start`. */
  durationMs: number;
  /** In `error`: what the caller's promise rejected with (the same object). */
  error: unknown;
  /** In `error`: the Redis error code or the error class name, as the `error.type` metric tag. */
  errorType: string | undefined;
}

/** Which of the client's connections: the shared pipeline, a dedicated one, or the subscriber. */
export type ConnectionRole = 'shared' | 'dedicated' | 'subscriber';

/** A connection of the client's became ready (`connect`) or ended (`close`). */
export interface ConnectionDiagnostic {
  /** The data endpoint the connection goes to. */
  readonly endpoint: RespireEndpoint;
  /** Which of the client's connections it is. */
  readonly role: ConnectionRole;
  /** In `connect`: whether an earlier connection of this role's channel was lost (a reconnect). */
  readonly reconnect: boolean;
  /** In `close`: why it ended; undefined when the client closed it. */
  readonly error: unknown;
  /** `error`'s Redis error code or class name, as the `error.type` metric tag; undefined without one. */
  readonly errorType: string | undefined;
}

/** A reconnect attempt was scheduled after a connection was lost or an attempt failed. */
export interface ReconnectDiagnostic {
  /** The data endpoint being reconnected to. */
  readonly endpoint: RespireEndpoint;
  /** Which of the client's connections it is. */
  readonly role: ConnectionRole;
  /** 1 for the first attempt after a loss, then 2, 3, … until one succeeds. */
  readonly attempt: number;
  /** The delay before the attempt, from the `reconnect` policy. */
  readonly delayMs: number;
  /** The error that ended the connection or failed the previous attempt. */
  readonly error: unknown;
  /** `error`'s Redis error code or class name, as the `error.type` metric tag. */
  readonly errorType: string | undefined;
}

/**
 * An error of the client's own work that no command's caller receives, so it has nowhere else to
 * go: a `reconnect` function that threw or gave an invalid delay (the default policy stood in).
 */
export interface ClientErrorDiagnostic {
  /** The data endpoint whose work failed. */
  readonly endpoint: RespireEndpoint;
  /** A RespireError; its `cause` holds what the application's code threw, if it threw. */
  readonly error: unknown;
  /** `error`'s class name, as the `error.type` metric tag. */
  readonly errorType: string | undefined;
}

/** A circuit changed state; published after the change is committed. */
export interface CircuitTransitionDiagnostic {
  /** The endpoint whose circuit it is. */
  readonly endpoint: RespireEndpoint;
  /** The state it left. */
  readonly from: CircuitState;
  /** The state it entered. */
  readonly to: CircuitState;
}

const commandStart = channel(DiagnosticChannels.commandStart);
const commandEnd = channel(DiagnosticChannels.commandEnd);
const commandError = channel(DiagnosticChannels.commandError);
const connectionConnect = channel(DiagnosticChannels.connectionConnect);
const connectionClose = channel(DiagnosticChannels.connectionClose);
const connectionReconnect = channel(DiagnosticChannels.connectionReconnect);
const circuitTransition = channel(DiagnosticChannels.circuitTransition);
const clientError = channel(DiagnosticChannels.clientError);

/** Whether anyone listens to a command channel: the one check a send path makes per command. */
export function commandsTraced(): boolean {
  return commandStart.hasSubscribers || commandEnd.hasSubscribers || commandError.hasSubscribers;
}

/**
 * Publishes `start` for `command` now and `end` or `error` when its promise settles. Does nothing
 * when no one subscribes to a command channel; call it before queuing the command.
 */
export function traceCommand(command: Command<unknown>, endpoint: RespireEndpoint, clock: Clock): void {
  traceOperation(command.name, command.promise, endpoint, clock);
}

/**
 * As traceCommand, for what a caller awaits that is not one command record: `EXEC` for the whole
 * of a transaction's `exec()` (multi.ts), settling as `promise` does.
 */
export function traceOperation(
  name: string,
  promise: Promise<unknown>,
  endpoint: RespireEndpoint,
  clock: Clock,
): void {
  if (!commandsTraced()) return;
  const message: CommandDiagnostic = {
    command: name,
    endpoint,
    durationMs: 0,
    error: undefined,
    errorType: undefined,
  };
  if (commandStart.hasSubscribers) commandStart.publish(message);
  const startedMs = clock.now();
  promise.then(
    () => {
      message.durationMs = clock.now() - startedMs;
      if (commandEnd.hasSubscribers) commandEnd.publish(message);
    },
    (error: unknown) => {
      message.durationMs = clock.now() - startedMs;
      message.error = error;
      message.errorType = errorTypeOf(error);
      if (commandError.hasSubscribers) commandError.publish(message);
    },
  );
}

/** Publishes a circuit's state change; ClientTelemetry.circuitTransition calls it. */
export function publishCircuitTransition(
  endpoint: RespireEndpoint,
  from: CircuitState,
  to: CircuitState,
): void {
  if (!circuitTransition.hasSubscribers) return;
  const message: CircuitTransitionDiagnostic = { endpoint, from, to };
  circuitTransition.publish(message);
}

/**
 * Reports errors no caller receives for one client: published on `respire:client:error`, or, while
 * nobody subscribes, a process warning (code RESPIRE_CLIENT_ERROR) the first time, so the error is
 * seen without crashing the process or repeating on every reconnect attempt.
 */
export function clientErrorReporter(endpoint: RespireEndpoint): (error: unknown) => void {
  let warned = false;
  return (error) => {
    if (clientError.hasSubscribers) {
      const message: ClientErrorDiagnostic = { endpoint, error, errorType: errorTypeOf(error) };
      clientError.publish(message);
    } else if (!warned) {
      warned = true;
      const cause = error instanceof Error && error.cause !== undefined ? ` (${String(error.cause)})` : '';
      process.emitWarning(`Respire client of ${describeEndpoint(endpoint)}: ${String(error)}${cause}`, {
        code: 'RESPIRE_CLIENT_ERROR',
      });
    }
  };
}

/**
 * The connection events of one channel (one role at one endpoint), as callbacks a transport
 * Channel can be given. `connected` needs only the existing `onConnect` option; `disconnected`
 * and `reconnecting` need the Channel to report a lost connection and a scheduled attempt.
 */
export interface ConnectionObserver {
  /** A connection became ready: the channel's `onConnect`. */
  connected(): void;
  /** A ready connection ended; `error` is undefined when the client closed it. */
  disconnected(error: unknown): void;
  /** A reconnect attempt is scheduled after `delayMs`. */
  reconnecting(attempt: number, delayMs: number, cause: unknown): void;
}

/** Publishes one channel's connection events; `reconnect` is true after its first connection. */
export function observeConnections(endpoint: RespireEndpoint, role: ConnectionRole): ConnectionObserver {
  let connectedBefore = false;
  return {
    connected() {
      const reconnect = connectedBefore;
      connectedBefore = true;
      if (!connectionConnect.hasSubscribers) return;
      const message: ConnectionDiagnostic = {
        endpoint,
        role,
        reconnect,
        error: undefined,
        errorType: undefined,
      };
      connectionConnect.publish(message);
    },
    disconnected(error) {
      if (!connectionClose.hasSubscribers) return;
      const message: ConnectionDiagnostic = {
        endpoint,
        role,
        reconnect: false,
        error,
        errorType: error === undefined ? undefined : errorTypeOf(error),
      };
      connectionClose.publish(message);
    },
    reconnecting(attempt, delayMs, cause) {
      if (!connectionReconnect.hasSubscribers) return;
      const message: ReconnectDiagnostic = {
        endpoint,
        role,
        attempt,
        delayMs,
        error: cause,
        errorType: errorTypeOf(cause),
      };
      connectionReconnect.publish(message);
    },
  };
}
