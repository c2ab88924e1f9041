// Helpers of the pub/sub regression tests: waiting for the subscriber connection to come back, and
// finding (and killing) it from another client.
import { channel } from 'node:diagnostics_channel';
import type { ConnectionDiagnostic, PubSubListener, RespireClient } from '../../src/index.js';
import { DiagnosticChannels } from '../../src/index.js';

/** Resolves at the next `respire:connection:connect` of a subscriber connection that is a reconnect. */
export function nextSubscriberReconnect(): Promise<void> {
  const connects = channel(DiagnosticChannels.connectionConnect);
  return new Promise((resolve) => {
    const onMessage = (message: unknown): void => {
      const event = message as ConnectionDiagnostic;
      if (event.role !== 'subscriber' || !event.reconnect) return;
      connects.unsubscribe(onMessage);
      resolve();
    };
    connects.subscribe(onMessage);
  });
}

/** Resolves at the next `respire:connection:close` of a subscriber connection. */
export function nextSubscriberClose(): Promise<void> {
  const closes = channel(DiagnosticChannels.connectionClose);
  return new Promise((resolve) => {
    const onMessage = (message: unknown): void => {
      if ((message as ConnectionDiagnostic).role !== 'subscriber') return;
      closes.unsubscribe(onMessage);
      resolve();
    };
    closes.subscribe(onMessage);
  });
}

/** Kills, through `admin`, every connection subscribed to something (the subscriber connections). */
export async function killSubscribers(admin: RespireClient): Promise<number> {
  let killed = 0;
  for (const client of await admin.clientList()) {
    if (client.sub === '0' && client.psub === '0' && (client.ssub ?? '0') === '0') continue;
    await admin.send(['CLIENT', 'KILL', 'ID', client.id!]);
    killed++;
  }
  return killed;
}

/** A listener that records what it hears, and a promise of the first message equal to `awaited`. */
export function recorder(awaited?: string): {
  listener: PubSubListener;
  heard: string[];
  received: Promise<void>;
} {
  const heard: string[] = [];
  let resolve!: () => void;
  const received = new Promise<void>((r) => (resolve = r));
  const listener: PubSubListener = (message) => {
    heard.push(String(message));
    if (awaited === undefined || String(message) === awaited) resolve();
  };
  return { listener, heard, received };
}

/** Creates (or resets) `username`, password `pw`, with every key and command but only `channels`. */
export async function channelUser(
  admin: RespireClient,
  username: string,
  channels: readonly string[],
): Promise<void> {
  const permitted = channels.map((channel) => `&${channel}`);
  await admin.send(['ACL', 'SETUSER', username, 'reset', 'on', '>pw', '~*', ...permitted, '+@all']);
}
