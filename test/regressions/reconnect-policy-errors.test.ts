// Regression (issue 19 #5): the `reconnect` function is the caller's code, run from the socket's
// close handler. One that threw crashed the process from there and the client never reconnected;
// one that returned a delay Node's timers cannot hold (2^31, Infinity, NaN, -1, a string)
// reconnected at once with a TimeoutOverflowWarning, or not as asked. Both are now a policy error:
// published on `respire:client:error` (a process warning, once, when nobody listens), and the
// default policy decides that attempt, so the client reconnects.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ClientErrorDiagnostic,
  type RespireClient,
  RespireConfigurationError,
} from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import type { FaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server, { acquireTimeout: 3_000 });

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Every message of `respire:client:error` from now on. */
function clientErrors(): ClientErrorDiagnostic[] {
  const seen: ClientErrorDiagnostic[] = [];
  const listener = (message: unknown) => seen.push(message as ClientErrorDiagnostic);
  subscribe('respire:client:error', listener);
  cleanups.push(() => void unsubscribe('respire:client:error', listener));
  return seen;
}

/** Every process warning from now on. */
function warnings(): Error[] {
  const seen: Error[] = [];
  const listener = (warning: Error) => seen.push(warning);
  process.on('warning', listener);
  cleanups.push(() => void process.off('warning', listener));
  return seen;
}

/** `answer` as a reconnect policy, and a wait for its next call (the client saw the loss). */
function policy(answer: () => unknown): { reconnect: () => number; asked(): Promise<void> } {
  let wake: (() => void) | undefined;
  return {
    reconnect: () => {
      wake?.();
      return answer() as number;
    },
    asked: () => new Promise((resolve) => (wake = resolve)),
  };
}

/** Drops the client's connection and checks that it comes back: a PING is answered. */
async function dropAndReconnect(
  proxy: FaultProxy,
  client: RespireClient,
  asked: () => Promise<void>,
): Promise<void> {
  const lost = asked();
  await proxy.closeAllConnections();
  await lost;
  expect(await client.ping()).toBe('PONG');
}

describe('a reconnect function that throws', () => {
  it('is reported, and the default policy reconnects', async () => {
    const seen = clientErrors();
    const boom = new Error('policy bug');
    const { reconnect, asked } = policy(() => {
      throw boom;
    });
    const { proxy, client } = await clients.proxied({ reconnect });
    await dropAndReconnect(proxy, client, asked);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.endpoint).toEqual({ host: server.host, port: proxy.port });
    expect(seen[0]!.error).toBeInstanceOf(RespireConfigurationError);
    expect(seen[0]!.error).toMatchObject({ option: 'reconnect', value: boom, cause: boom });
    expect(seen[0]!.errorType).toBe('RespireConfigurationError');
  });

  it('becomes one process warning when nobody listens', async () => {
    const seen = warnings();
    const { reconnect, asked } = policy(() => {
      throw new Error('policy bug');
    });
    const { proxy, client } = await clients.proxied({ reconnect });
    await dropAndReconnect(proxy, client, asked);
    await dropAndReconnect(proxy, client, asked);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(seen.map((warning) => (warning as Error & { code?: string }).code)).toEqual([
      'RESPIRE_CLIENT_ERROR',
    ]);
  });
});

describe('a reconnect function returning a delay timers cannot hold', () => {
  it.each([
    ['2^31', 2 ** 31],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
    ['-1', -1],
    ['a string', '5'],
    ['true', true],
  ])('%s is reported, and the default policy reconnects', async (_, delay) => {
    const seen = clientErrors();
    const seenWarnings = warnings();
    const { reconnect, asked } = policy(() => delay);
    const { proxy, client } = await clients.proxied({ reconnect });
    await dropAndReconnect(proxy, client, asked);
    expect(seen.map((m) => m.error)).toEqual([expect.any(RespireConfigurationError)]);
    expect(seen[0]!.error).toMatchObject({ option: 'reconnect', value: delay });
    await new Promise((resolve) => process.nextTick(resolve));
    expect(seenWarnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning');
  });

  it('accepts 0, 2^31 - 1 and false', async () => {
    const seen = clientErrors();
    for (const delay of [0, 2 ** 31 - 1]) {
      const { reconnect, asked } = policy(() => delay);
      const { proxy, client } = await clients.proxied({ reconnect });
      const lost = asked();
      await proxy.closeAllConnections();
      await lost;
      if (delay === 0) expect(await client.ping()).toBe('PONG');
    }
    const gaveUp = policy(() => false);
    const { proxy, client } = await clients.proxied({ reconnect: gaveUp.reconnect });
    const lost = gaveUp.asked();
    await proxy.closeAllConnections();
    await lost;
    await expect(client.ping()).rejects.toMatchObject({ written: false });
    expect(seen).toEqual([]);
  });
});
