// Regression (issue 10, defect 2): when reconnects fail because the credentials were refused (a rotated
// password), commands waiting for a connection must fail with RespireAuthenticationError and the
// circuit must record nothing (seed 000: authentication is never recorded), as the
// dedicated-connection path already did. Before, they hit their acquire deadline as selection
// failures: the caller got RespireConnectionError and the circuit opened, hiding the cause.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, expect, it } from 'vitest';
import type { ReconnectDiagnostic } from '../../src/client/diagnostics.js';
import { RespireAuthenticationError, RespireClient } from '../../src/index.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

afterEach(async () => {
  const admin = await RespireClient.connect({
    endpoints: [{ host: server.host, port: server.port }],
    password: 'rotated',
  }).catch(() => undefined);
  await admin?.send(['CONFIG', 'SET', 'requirepass', '']);
  admin?.destroy();
});

it('a refused password on reconnect fails waiting commands with RespireAuthenticationError, recording nothing', async () => {
  const admin = await clients.open();
  await admin.send(['CONFIG', 'SET', 'requirepass', 'original']);
  const client = await clients.open({
    password: 'original',
    acquireTimeout: 400,
    reconnect: () => 20,
    circuitBreaker: { minimumFailureCount: 1, openDuration: 60_000 },
  });
  const transitions: string[] = [];
  client.circuit!.onTransition((from, to) => transitions.push(`${from}>${to}`));
  expect(await client.ping()).toBe('PONG');
  await admin.send(['CONFIG', 'SET', 'requirepass', 'rotated']);
  const lost = reconnectAttempt((attempt) => attempt === 1);
  await admin.send(['CLIENT', 'KILL', 'USER', 'default', 'SKIPME', 'yes']);
  admin.destroy();
  await lost; // the client noticed; these commands wait for the reconnect, which is refused
  const refused = reconnectAttempt(
    (attempt, error) => attempt === 2 && error instanceof RespireAuthenticationError,
  );
  const results = await Promise.all([
    outcome(client.get('rotated:a')),
    outcome(client.get('rotated:b')),
    outcome(client.set('rotated:c', '1')),
  ]);
  for (const result of results) {
    expect(result.error).toBeInstanceOf(RespireAuthenticationError);
    expect((result.error as RespireAuthenticationError).written).toBe(false);
  }
  await refused;
  // Later commands too: still the cause, never a circuit rejection.
  expect((await outcome(client.get('rotated:d'))).error).toBeInstanceOf(RespireAuthenticationError);
  expect(transitions).toEqual([]);
  const snapshot = client.circuit!.snapshot();
  expect(snapshot.state).toBe('closed');
  expect(snapshot.failures).toBe(0);
});

/** Resolves at the next `respire:connection:reconnect` diagnostic that `match` accepts. */
function reconnectAttempt(match: (attempt: number, error: unknown) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const listener = (message: unknown): void => {
      const { attempt, error } = message as ReconnectDiagnostic;
      if (!match(attempt, error)) return;
      unsubscribe('respire:connection:reconnect', listener);
      resolve();
    };
    subscribe('respire:connection:reconnect', listener);
  });
}
