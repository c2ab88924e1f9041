// Opens a ready connection: socket, then the handshake of PROTOCOL.md §1.4 (HELLO with AUTH and
// SETNAME, RESP2 fallback, library info, SELECT, extra setup), all within `connectTimeout`. No user
// command is written before this resolves.

import {
  RespireAuthenticationError,
  RespireConnectionError,
  type RespireEndpoint,
  RespireError,
  RespireServerError,
  RespireTimeoutError,
} from '../errors.js';
import type { RespValue } from '../resp/types.js';
import type { Clock } from '../util/clock.js';
import { describeEndpoint } from '../util/describe-endpoint.js';
import { REDACTED } from '../util/redact.js';
import { startTimer, stopTimer } from '../util/timers.js';
import { Connection, type ConnectionEvents } from './connection.js';
import type { Maintenance, MaintenanceMode } from './maintenance/maintenance.js';
import { SlabReader } from './slab-reader.js';
import { openSocket, type TlsOption } from './socket.js';
import type { SocketFactory } from './socket-factory.js';

/** Slab size for string replies, which keep no view of the slab once decoded (so it is reused). */
export const SLAB_BYTES = 1024 * 1024;
/** With zero-copy Buffer replies, a retained reply pins its slab: keep that to a socket read's size. */
const SMALL_SLAB_BYTES = 64 * 1024 + 16 * 1024;

const LIBRARY_NAME = 'respire';
export const LIBRARY_VERSION = '0.1.0';

export interface ConnectionSettings {
  endpoint: RespireEndpoint;
  tls: TlsOption;
  /** 3 asks for RESP3 and falls back to RESP2 when the server has no HELLO; 2 forces RESP2. */
  protocol: 2 | 3;
  username: string | undefined;
  password: string | undefined;
  clientName: string | undefined;
  database: number;
  connectTimeout: number;
  /** Default reply deadline of a written command (ms, 0 = none); see connection.ts. */
  commandTimeout?: number | undefined;
  returnBuffers: boolean;
  clock: Clock;
  /** Commands to run after the handshake (READONLY, CLIENT TRACKING, …); each must succeed. */
  setupCommands?: readonly (readonly string[])[] | undefined;
  /** Aborting it ends the attempt at once, with the signal's reason (a closed Sentinel watcher). */
  signal?: AbortSignal | undefined;
  /** What opens the socket (socket-factory.ts); real sockets when absent. */
  socketFactory?: SocketFactory | undefined;
  /** Maintenance notifications (PROTOCOL.md §5): the opt-in and the relaxed deadlines; none: disabled. */
  maintenance?: Maintenance | undefined;
}

/** Error codes that mean the credentials were refused (PROTOCOL.md §1.4). */
const AUTH_CODES = new Set(['WRONGPASS', 'NOAUTH', 'NOPERM', 'ERR_AUTH']);

export async function connect(settings: ConnectionSettings, events: ConnectionEvents): Promise<Connection> {
  const { endpoint, connectTimeout } = settings;
  const deadline = new AbortController();
  const timer = startTimer(
    settings.clock,
    () =>
      deadline.abort(
        new RespireTimeoutError(
          `connecting to ${describeEndpoint(endpoint)} took over ${connectTimeout} ms`,
          'connect',
          {
            endpoint,
            timeoutMs: connectTimeout,
            written: false,
          },
        ),
      ),
    connectTimeout,
  );
  const { signal } = settings;
  const cancel = (): void => deadline.abort(signal?.reason);
  if (signal?.aborted) cancel();
  else signal?.addEventListener('abort', cancel, { once: true });
  let connection: Connection | undefined;
  try {
    // TLS sockets have no `onread`; they emit 'data' as usual.
    const useTls = settings.tls !== undefined && settings.tls !== false;
    const reader = useTls
      ? undefined
      : new SlabReader(settings.returnBuffers ? SMALL_SLAB_BYTES : SLAB_BYTES);
    const socket = await (settings.socketFactory ?? openSocket)(
      endpoint,
      settings.tls,
      deadline.signal,
      reader,
    );
    connection = new Connection(
      endpoint,
      socket,
      settings.clock,
      events,
      settings.returnBuffers,
      settings.commandTimeout ?? 0,
      reader,
      settings.maintenance?.windows,
    );
    await raceAbort(handshake(connection, settings), deadline.signal);
    return connection;
  } catch (error) {
    connection?.destroy(undefined);
    throw asConnectionError(error, endpoint, settings.password);
  } finally {
    stopTimer(settings.clock, timer);
    signal?.removeEventListener('abort', cancel);
  }
}

async function handshake(connection: Connection, settings: ConnectionSettings): Promise<void> {
  const { username, password, clientName } = settings;
  const mode = settings.maintenance?.mode ?? 'disabled';
  let resp3 = false;
  let optIn: Promise<RespValue> | undefined;
  if (settings.protocol === 3) {
    const hello: string[] = ['HELLO', '3'];
    if (password !== undefined) hello.push('AUTH', username ?? 'default', password);
    if (clientName !== undefined) hello.push('SETNAME', clientName);
    const greeting = connection.request(hello);
    // PROTOCOL.md §5: the opt-in goes right behind HELLO 3, which the server runs first, so it
    // costs no round trip of its own; its outcome is judged once HELLO's is known (below).
    optIn = mode === 'disabled' ? undefined : connection.request(['CLIENT', 'MAINT_NOTIFICATIONS', 'ON']);
    optIn?.catch(() => null);
    try {
      await greeting;
      resp3 = true;
    } catch (error) {
      // Servers before 6.0 have no HELLO; NOPROTO means no RESP3. Both continue in RESP2.
      if (!(error instanceof RespireServerError && (error.code === 'NOPROTO' || isUnknownCommand(error)))) {
        throw error;
      }
    }
  }
  connection.protocol = resp3 ? 3 : 2;
  const setup: Promise<RespValue>[] = [];
  if (!resp3) {
    if (password !== undefined) {
      setup.push(
        connection.request(username === undefined ? ['AUTH', password] : ['AUTH', username, password]),
      );
    }
    if (clientName !== undefined) setup.push(connection.request(['CLIENT', 'SETNAME', clientName]));
    // Without AUTH nothing above proves the server lets us in: 7.0 answers an unknown subcommand
    // (CLIENT SETINFO) before it checks authentication. PING gets NOAUTH when a password is needed.
    if (password === undefined) setup.push(connection.request(['PING']));
  }
  // Library identification is 7.2+; older servers answer an error that is fine to ignore.
  const optional = [
    connection.request(['CLIENT', 'SETINFO', 'LIB-NAME', LIBRARY_NAME]),
    connection.request(['CLIENT', 'SETINFO', 'LIB-VER', LIBRARY_VERSION]),
  ];
  const maintenance = maintenanceOutcome(optIn, mode, resp3);
  if (maintenance !== undefined) (mode === 'enabled' ? setup : optional).push(maintenance);
  if (settings.database !== 0) setup.push(connection.request(['SELECT', String(settings.database)]));
  for (const command of settings.setupCommands ?? []) setup.push(connection.request(command));
  await Promise.all([...setup, ...optional.map((request) => request.catch(() => null))]);
}

/**
 * PROTOCOL.md §5: `CLIENT MAINT_NOTIFICATIONS ON` after HELLO 3, letting the server choose the
 * endpoint type. `auto` tolerates a refusal (Redis 7.0 refuses it) and a connection left in RESP2;
 * `enabled` fails the connection on a refusal, and over RESP2, where the pushes cannot arrive.
 */
function maintenanceOutcome(
  optIn: Promise<RespValue> | undefined,
  mode: MaintenanceMode,
  resp3: boolean,
): Promise<RespValue> | undefined {
  if (mode === 'disabled' || (mode === 'auto' && !resp3)) return undefined;
  if (!resp3 || optIn === undefined) {
    return Promise.reject(
      new RespireServerError("ERR maintenance: 'enabled' needs RESP3, and the connection is RESP2"),
    );
  }
  if (mode === 'auto') return optIn;
  return optIn.catch((error: Error) => {
    throw new RespireServerError(`${error.message} (maintenance: 'enabled' needs maintenance notifications)`);
  });
}

function isUnknownCommand(error: RespireServerError): boolean {
  return error.code === 'ERR' && error.message.includes('unknown command');
}

/**
 * A handshake reply with the password taken out (issue 17: no error carries a password). AUTH and
 * HELLO carry it, and an error reply may quote a command's arguments: Redis answers a command it
 * lacks (AUTH renamed away) with "ERR unknown command 'AUTH', with args beginning with: '<pw>' ".
 * It quotes at most 128 characters and prints CR and LF as spaces, so that quote may hold the
 * password cut or altered: it is dropped whole. Elsewhere the password itself is redacted.
 */
function withoutPassword(error: RespireServerError, password: string | undefined): RespireServerError {
  if (password === undefined || password === '') return error;
  const quote = error.message.indexOf(', with args beginning with:');
  const message = (quote === -1 ? error.message : error.message.slice(0, quote)).replaceAll(
    password,
    REDACTED,
  );
  return message === error.message ? error : new RespireServerError(message, { endpoint: error.endpoint });
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The one place a handshake failure gets its meaning: auth refused, timeout, or connection error. */
function asConnectionError(
  error: unknown,
  endpoint: RespireEndpoint,
  password: string | undefined,
): RespireError {
  if (error instanceof RespireServerError) {
    const reply = withoutPassword(error, password);
    const message = `handshake with ${describeEndpoint(endpoint)} failed: ${reply.message}`;
    return AUTH_CODES.has(reply.code)
      ? new RespireAuthenticationError(message, { endpoint, cause: reply, written: false })
      : new RespireConnectionError(message, { endpoint, cause: reply, written: false });
  }
  if (error instanceof RespireError) return error;
  return new RespireConnectionError(`cannot connect to ${describeEndpoint(endpoint)}: ${String(error)}`, {
    endpoint,
    cause: error,
    written: false,
  });
}
