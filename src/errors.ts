// Every error Respire throws or rejects with (API.md "Errors"). Meaning is decided where an error
// is created; nothing else in the code base parses error message text.
import { describeEndpoint } from './util/describe-endpoint.js';
import { REDACTED, redactOption } from './util/redact.js';

/**
 * A data endpoint as configured or as reported by Cluster/Sentinel. For a Unix socket, `path` is
 * set, `host` is the same path and `port` is 0.
 */
export interface RespireEndpoint {
  /** Host name or IP address; a Unix socket's path for a socket endpoint. */
  readonly host: string;
  /** TCP port; 0 for a Unix socket. */
  readonly port: number;
  /** The Unix socket's path, for a `{ path }` endpoint; otherwise absent. */
  readonly path?: string | undefined;
}

/** What every Respire error may carry besides its message. */
export interface RespireErrorOptions {
  /** The data endpoint involved, when there is one. */
  endpoint?: RespireEndpoint | undefined;
  /** The underlying error. */
  cause?: unknown;
}

/** Base class of every error Respire throws. */
export class RespireError extends Error {
  /** The class name, `'RespireError'`, as `error.name` shows it. */
  override name = 'RespireError';
  /** The data endpoint involved, when there is one. */
  readonly endpoint: RespireEndpoint | undefined;

  constructor(message: string, options: RespireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.endpoint = options.endpoint;
  }
}

/** Options of a RespireConnectionError: whether the failed command was written. */
export interface RespireConnectionErrorOptions extends RespireErrorOptions {
  /**
   * Whether the failed command had been written to the socket. `false` means Redis never saw it;
   * `true` means it may have executed. `undefined` when the error is not about one command.
   */
  written?: boolean | undefined;
}

/** Socket, TLS or setup failure; connection lost with the command in flight. */
export class RespireConnectionError extends RespireError {
  /** The class name, `'RespireConnectionError'`, as `error.name` shows it. */
  override name = 'RespireConnectionError';
  /**
   * Whether the failed command had been written to the socket: `false` means Redis never saw it,
   * `true` that it may have run. `undefined` when the error is not about one command.
   */
  readonly written: boolean | undefined;

  constructor(message: string, options: RespireConnectionErrorOptions = {}) {
    super(message, options);
    this.written = options.written;
  }
}

/** The handshake's authentication was refused (`WRONGPASS`, `NOAUTH`, …). */
export class RespireAuthenticationError extends RespireConnectionError {
  /** The class name, `'RespireAuthenticationError'`, as `error.name` shows it. */
  override name = 'RespireAuthenticationError';
}

/** Options of a RespireProtocolError: where in the stream the fault was found. */
export interface RespireProtocolErrorOptions extends RespireErrorOptions {
  /** Byte offset in the connection's inbound stream where the fault was found. */
  offset?: number | undefined;
}

/** A malformed frame from the server. The connection is closed and every pending command fails. */
export class RespireProtocolError extends RespireError {
  /** The class name, `'RespireProtocolError'`, as `error.name` shows it. */
  override name = 'RespireProtocolError';
  /** Byte offset in the connection's inbound stream where the fault was found, when known. */
  readonly offset: number | undefined;

  constructor(message: string, options: RespireProtocolErrorOptions = {}) {
    super(message, options);
    this.offset = options.offset;
  }
}

/** Which deadline ran out: socket setup plus handshake, a sent command's reply, or capacity. */
export type RespireTimeoutPhase = 'connect' | 'response' | 'acquire';

/** Options of a RespireTimeoutError: the deadline that ran out. */
export interface RespireTimeoutErrorOptions extends RespireConnectionErrorOptions {
  /** The deadline that ran out, in milliseconds. */
  timeoutMs?: number | undefined;
}

/** A deadline ran out; `phase` says which. */
export class RespireTimeoutError extends RespireError {
  /** The class name, `'RespireTimeoutError'`, as `error.name` shows it. */
  override name = 'RespireTimeoutError';
  /** Which deadline ran out: `'connect'`, `'response'` or `'acquire'`. */
  readonly phase: RespireTimeoutPhase;
  /** The deadline that ran out, in milliseconds, when known. */
  readonly timeoutMs: number | undefined;
  /** Whether the command had been written (always `true` for phase `'response'`). */
  readonly written: boolean | undefined;

  constructor(message: string, phase: RespireTimeoutPhase, options: RespireTimeoutErrorOptions = {}) {
    super(message, options);
    this.phase = phase;
    this.timeoutMs = options.timeoutMs;
    this.written = options.written;
  }
}

/**
 * A reply deadline ran out while the endpoint was in a maintenance window (PROTOCOL.md §5: a
 * MIGRATING, FAILING_OVER or MOVING announced by the server), even with deadlines relaxed:
 * `'command'` for one command's deadline, `'socket'` for a connection that stayed silent.
 */
export class RespireMaintenanceTimeoutError extends RespireTimeoutError {
  override name = 'RespireMaintenanceTimeoutError';
  /** `'command'`: one command's reply deadline ran out; `'socket'`: the connection stayed silent. */
  readonly during: 'command' | 'socket';

  constructor(message: string, during: 'command' | 'socket', options: RespireTimeoutErrorOptions = {}) {
    super(message, 'response', options);
    this.during = during;
  }
}

/**
 * An error reply from Redis. `code` is its first word (`ERR`, `WRONGTYPE`, `MOVED`, …). Inside an
 * aggregate reply (an `EXEC` result) it is a value; at top level the command rejects with it.
 */
export class RespireServerError extends RespireError {
  /** The class name, `'RespireServerError'`, as `error.name` shows it. */
  override name = 'RespireServerError';
  /** The error reply's first word: `ERR`, `WRONGTYPE`, `NOPERM`, `MOVED`, … */
  readonly code: string;

  constructor(message: string, options: RespireErrorOptions = {}) {
    super(message, options);
    this.code = errorCode(message);
  }

  /**
   * An error reply as the decoder delivers it. Error replies are values (an EXEC result may hold
   * many), and the native Error constructor costs far more than decoding the frame, while its
   * stack would only show the decoder's loop. So this builds the same object, with the same own
   * properties and prototype chain (`instanceof` works), without calling it; `stack` is the first
   * line a native one would have. (Unlike a native Error's, its `message`
   * and `stack` are enumerable, and `util.types.isNativeError` says false.)
   */
  static fromReply(message: string): RespireServerError {
    const error = Object.create(RespireServerError.prototype) as {
      -readonly [K in keyof RespireServerError]: unknown;
    };
    error.stack = `RespireServerError: ${message}`;
    error.message = message;
    error.name = 'RespireServerError';
    error.endpoint = undefined;
    error.code = errorCode(message);
    return error as RespireServerError;
  }
}

function errorCode(message: string): string {
  const space = message.indexOf(' ');
  return space === -1 ? message : message.slice(0, space);
}

/** Rejected by an open circuit; nothing was sent. */
export class RespireCircuitOpenError extends RespireError {
  /** The class name, `'RespireCircuitOpenError'`, as `error.name` shows it. */
  override name = 'RespireCircuitOpenError';
  /**
   * Milliseconds left of the open delay, or `null` when the circuit is half-open and every probe
   * slot is taken. A snapshot, not permission to resend.
   */
  readonly retryAfter: number | null;

  /**
   * Built without a stack trace: a rejection happens in the pipeline, not at the caller's line, so
   * a stack would only show Respire's internals, and capturing it would cost more than the rest
   * of a rejection (seed 000: an open circuit is meant to be cheap to hit).
   */
  constructor(endpoint: RespireEndpoint, retryAfter: number | null) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(
      retryAfter === null
        ? `circuit of ${describeEndpoint(endpoint)} is half-open and every probe slot is taken`
        : `circuit of ${describeEndpoint(endpoint)} is open; retry after ${retryAfter} ms`,
      { endpoint },
    );
    Error.stackTraceLimit = stackTraceLimit;
    this.retryAfter = retryAfter;
  }
}

/**
 * An option is missing, unknown, not supported yet or outside its allowed range. Credentials are
 * never echoed (issue 10 #5): `value` and the message show `[redacted]` for a credential option
 * (`password`, `username`, `tls.key`, …) and for the user info of a URL or `user:pass@host`
 * string, also inside objects and arrays.
 */
export class RespireConfigurationError extends RespireError {
  /** The class name, `'RespireConfigurationError'`, as `error.name` shows it. */
  override name = 'RespireConfigurationError';
  /** The option at fault, as a path (`circuitBreaker.openDuration`). */
  readonly option: string;
  /** The value that was given, with credentials redacted; `undefined` for an unknown option. */
  readonly value: unknown;
  /** The allowed range or form, in words. */
  readonly allowed: string;

  /**
   * `details.message` replaces the usual "invalid option …" text (unknown option names use it);
   * `details.cause` is what the option's code threw, for an option that is a function.
   */
  constructor(
    option: string,
    value: unknown,
    allowed: string,
    details: RespireErrorOptions & { message?: string } = {},
  ) {
    const shown = redactOption(option, value);
    const { message, ...options } = details;
    super(message ?? `invalid option ${option}: ${describeValue(shown)}; allowed: ${allowed}`, options);
    this.option = option;
    this.value = shown;
    this.allowed = allowed;
  }
}

function describeValue(value: unknown): string {
  if (value === REDACTED) return REDACTED;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/**
 * A command the client will not send on the connections it manages (README "Commands `send`
 * refuses"): it would change the connection's state behind the client's back, so that replies no
 * longer match their callers or the change is lost on the next reconnect. Nothing was sent.
 */
export class RespireUnsupportedCommandError extends RespireError {
  /** The class name, `'RespireUnsupportedCommandError'`, as `error.name` shows it. */
  override name = 'RespireUnsupportedCommandError';
  /** The refused command, upper-cased, with its subcommand when that decides (`CLIENT SETNAME`). */
  readonly command: string;

  constructor(command: string, instead: string) {
    super(`${command} is not sent on the client's connections: ${instead}`);
    this.command = command;
  }
}
