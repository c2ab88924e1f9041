// One short conversation with a sentinel or a data node during discovery: connect (transport's
// `connect`, so the handshake, TLS and RESP2 fallback are the client's own), send a few commands
// pipelined, read their replies, close. No admission gate anywhere: sentinel connections,
// discovery and ROLE checks are never checked by a circuit (seed 000 "Sentinel"). Sentinel
// credentials go only to sentinels, data credentials only to data nodes (issue 12 "Discovery").
import type { RespireEndpoint } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { type ConnectionSettings, connect } from '../transport/connect.js';
import type { ConnectionEvents } from '../transport/connection.js';
import type { TlsOption } from '../transport/socket.js';
import type { SocketFactory } from '../transport/socket-factory.js';
import type { Clock } from '../util/clock.js';
import type { ResolvedSentinelOptions } from './options.js';

/** How the data nodes are reached: the client's own options, never the sentinels'. */
export interface SentinelDataSettings {
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly tls: TlsOption;
  /** Bounds every connection discovery opens, ms. */
  readonly connectTimeout: number;
  /** 3 (default) asks for RESP3 and falls back to RESP2; 2 forces RESP2. Sentinels too. */
  readonly protocol?: 2 | 3 | undefined;
  /** Internal (transport/socket-factory.ts): the simulation's sockets, sentinels' too. */
  readonly socketFactory?: SocketFactory | undefined;
}

export interface ExchangeContext {
  readonly sentinel: ResolvedSentinelOptions;
  readonly data: SentinelDataSettings;
  readonly clock: Clock;
  /** Aborted when the watcher is closed: a conversation under way ends at once. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Each sentinel gets a short attempt (PROTOCOL.md §3.2: "a few hundred ms"), bounded by
 * connectTimeout (API.md "Sentinel"), so one black-holed sentinel does not hold up the others.
 */
export const SENTINEL_ATTEMPT_MS = 1000;

export function sentinelAttemptMs(context: ExchangeContext): number {
  return Math.min(context.data.connectTimeout, SENTINEL_ATTEMPT_MS);
}

/** Connection settings for a sentinel: the sentinel credentials and TLS, the short attempt. */
export function sentinelSettings(context: ExchangeContext, endpoint: RespireEndpoint): ConnectionSettings {
  const { sentinel } = context;
  return settings(
    context,
    endpoint,
    sentinel.username,
    sentinel.password,
    sentinel.tls,
    sentinelAttemptMs(context),
  );
}

/** Connection settings for a data node (ROLE checks): the data credentials and TLS. */
export function dataSettings(context: ExchangeContext, endpoint: RespireEndpoint): ConnectionSettings {
  const { data } = context;
  return settings(context, endpoint, data.username, data.password, data.tls, data.connectTimeout);
}

function settings(
  context: ExchangeContext,
  endpoint: RespireEndpoint,
  username: string | undefined,
  password: string | undefined,
  tls: TlsOption,
  timeoutMs: number,
): ConnectionSettings {
  return {
    endpoint,
    tls,
    protocol: context.data.protocol ?? 3,
    username,
    password,
    clientName: undefined,
    database: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    returnBuffers: false,
    clock: context.clock,
    signal: context.signal,
    socketFactory: context.data.socketFactory,
  };
}

const IGNORED_EVENTS: ConnectionEvents = { onPush() {}, onDrain() {}, onClose() {} };

/**
 * Connects with `settings`, sends `commands` pipelined and returns each reply, or the error it
 * failed with (an error reply, a lost connection, its reply deadline). A failed connect rejects.
 */
export async function exchange(
  settings: ConnectionSettings,
  commands: readonly (readonly string[])[],
): Promise<(RespValue | Error)[]> {
  const connection = await connect(settings, IGNORED_EVENTS);
  const { signal } = settings;
  const cancel = (): void => connection.destroy(signal?.reason);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const timeoutMs = settings.connectTimeout;
    return await Promise.all(
      commands.map((args) => connection.request(args, timeoutMs).catch((error: unknown) => asError(error))),
    );
  } finally {
    signal?.removeEventListener('abort', cancel);
    connection.destroy(undefined);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
