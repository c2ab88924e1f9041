// Opens a channel's new connection (a first one, a reconnection) where the endpoint's new
// connections go: after a MOVING, to the endpoint it announced, for the announced time, and if
// that one refuses, it is forgotten for the next attempt (maintenance/moved-endpoint.ts, PROTOCOL.md
// §5 item 2); otherwise to the configured endpoint. `signal` (the channel closing) gives it up at once.
import { type ConnectionSettings, connect } from './connect.js';
import type { Connection, ConnectionEvents } from './connection.js';

export function dial(
  settings: ConnectionSettings,
  events: ConnectionEvents,
  signal: AbortSignal,
): Promise<Connection> {
  const moved = settings.maintenance?.windows.moved;
  const endpoint = moved?.target;
  if (moved === undefined || endpoint === undefined) return connect({ ...settings, signal }, events);
  return connect({ ...settings, endpoint, signal }, events).catch((error: unknown) => {
    // Given up by the channel closing: the announced endpoint did not refuse anything.
    if (!signal.aborted) moved.refused(endpoint);
    throw error;
  });
}
