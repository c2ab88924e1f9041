// The client publishing its diagnostics channels (diagnostics.ts) against a real redis-server:
// command start/end/error for single commands and batch entries, never a key or a value, and the
// shared connection's connect and reconnect through the fault proxy.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CommandDiagnostic,
  type ConnectionDiagnostic,
  DiagnosticChannels,
  RespireServerError,
} from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextTurn, useTestClients } from './support.js';

const server = useRedisServer();

const KEY = 'diagnostics:secret-key';
const VALUE = 'secret-value';

const { open: connect, startProxy } = useTestClients(server, { reconnect: () => 10 });
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * What `names` publish from now on, as [channel, message, copy of the message when published], in
 * order: a command's message object is the same from start to end and gains fields on the way.
 */
function listen(...names: string[]): [string, unknown, Record<string, unknown>][] {
  const seen: [string, unknown, Record<string, unknown>][] = [];
  for (const name of names) {
    const listener = (message: unknown) => seen.push([name, message, { ...(message as object) }]);
    subscribe(name, listener);
    cleanups.push(() => void unsubscribe(name, listener));
  }
  return seen;
}

/** Resolves when the connect channel next publishes a reconnect. */
function nextReconnect(): Promise<void> {
  return new Promise((resolve) => {
    const onConnect = (message: unknown) => {
      if ((message as ConnectionDiagnostic).reconnect) resolve();
    };
    subscribe(DiagnosticChannels.connectionConnect, onConnect);
    cleanups.push(() => void unsubscribe(DiagnosticChannels.connectionConnect, onConnect));
  });
}

describe('command channels of a client', () => {
  it('see each command and batch entry start and end or fail, by name only', async () => {
    const client = await connect();
    const seen = listen(
      DiagnosticChannels.commandStart,
      DiagnosticChannels.commandEnd,
      DiagnosticChannels.commandError,
    );
    await client.set(KEY, VALUE);
    await expect(client.lpush(KEY, VALUE)).rejects.toBeInstanceOf(RespireServerError);
    const batch = client.batch();
    batch.get(KEY);
    batch.incr(KEY);
    await batch.tryExecute();

    const events = seen.map(([name, , copy]) => {
      const m = copy as unknown as CommandDiagnostic;
      return `${name.slice('respire:command:'.length)} ${m.command}${m.errorType ? ` ${m.errorType}` : ''}`;
    });
    expect(events).toEqual([
      'start SET',
      'end SET',
      'start LPUSH',
      'error LPUSH WRONGTYPE',
      'start GET',
      'start INCR',
      'end GET',
      'error INCR ERR',
    ]);
    for (const [, message] of seen) {
      const m = message as CommandDiagnostic;
      expect(m.endpoint).toEqual({ host: server.host, port: server.port });
      expect(m.durationMs).toBeGreaterThanOrEqual(0);
    }
    // Each start and its end or error share one message object.
    expect(seen[1]![1]).toBe(seen[0]![1]);
    const text = JSON.stringify(seen.map(([, m]) => ({ ...(m as CommandDiagnostic), error: undefined })));
    expect(text).not.toMatch(/secret/);
  });

  it('publish nothing once unsubscribed', async () => {
    const client = await connect();
    const seen: unknown[] = [];
    const listener = (message: unknown) => seen.push(message);
    subscribe(DiagnosticChannels.commandStart, listener);
    await client.ping();
    unsubscribe(DiagnosticChannels.commandStart, listener);
    await client.ping();
    expect(seen).toEqual([expect.objectContaining({ command: 'PING' })]);
  });
});

describe('connection channel of a client', () => {
  it('sees the shared connection connect, then reconnect after a reset', async () => {
    const proxy = await startProxy();
    const seen = listen(DiagnosticChannels.connectionConnect);
    const reconnect = nextReconnect();
    const client = await connect({}, proxy.port);
    await proxy.setMode('reset');
    await proxy.setMode('pass');
    await reconnect;
    expect(await client.ping()).toBe('PONG');
    const messages = seen.map(([, message]) => message as ConnectionDiagnostic);
    expect(messages.map((m) => [m.role, m.reconnect])).toEqual([
      ['shared', false],
      ['shared', true],
    ]);
    expect(messages[0]!.endpoint).toEqual({ host: server.host, port: proxy.port });
  });

  it('reports a destroy() by the client as a close without an error', async () => {
    const seen = listen(DiagnosticChannels.connectionClose);
    const client = await connect();
    client.destroy();
    await nextTurn();
    expect(seen.map(([, message]) => (message as ConnectionDiagnostic).error)).toEqual([undefined]);
  });

  it('sees dedicated and subscriber connections too, by role', async () => {
    const seen = listen(DiagnosticChannels.connectionConnect, DiagnosticChannels.connectionClose);
    const client = await connect();
    await client.send(['BLPOP', 'diagnostics:empty', '0.01']);
    await client.subscribe('diagnostics:news', () => {});
    await client.close();
    const events = seen.map(
      ([name, message]) => `${name.split(':').pop()} ${(message as ConnectionDiagnostic).role}`,
    );
    expect(events).toEqual(
      expect.arrayContaining([
        'connect shared',
        'connect dedicated',
        'connect subscriber',
        'close dedicated',
        'close subscriber',
        'close shared',
      ]),
    );
  });

  it('sees the shared connection close with its error, the reconnect scheduled, and a clean close', async () => {
    const proxy = await startProxy();
    const seen = listen(DiagnosticChannels.connectionClose, DiagnosticChannels.connectionReconnect);
    const client = await connect({}, proxy.port);
    const reconnect = nextReconnect();
    await proxy.setMode('reset');
    await proxy.setMode('pass');
    await reconnect;
    await client.close();
    const [lost, scheduled, closed] = seen;
    expect(lost![0]).toBe(DiagnosticChannels.connectionClose);
    expect((lost![1] as ConnectionDiagnostic).errorType).toBe('RespireConnectionError');
    expect(scheduled![0]).toBe(DiagnosticChannels.connectionReconnect);
    expect(scheduled![1]).toMatchObject({ attempt: 1, delayMs: 10, role: 'shared' });
    expect(closed![0]).toBe(DiagnosticChannels.connectionClose);
    expect((closed![1] as ConnectionDiagnostic).error).toBeUndefined();
  });
});
