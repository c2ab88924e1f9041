// Regression (issue 10, "one slow command must not fail the whole pipeline"): a command's reply
// deadline rejects that command only; its late reply is read and discarded, the FIFO stays aligned,
// and the connection is replaced only when it is itself unresponsive (connection.ts, README).
import { expect, it } from 'vitest';
import { RespireConnectionError, RespireTimeoutError } from '../../src/index.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients = useTestClients(useRedisServer());

it('a slow command with a short timeout fails alone; the writes behind it succeed on the same connection', async () => {
  const client = await clients.open({ circuitBreaker: { minimumFailureCount: 2 } });
  const id = await client.send(['CLIENT', 'ID']);
  const slow = outcome(client.send(['DEBUG', 'SLEEP', '0.3'], { timeout: 50 }));
  const writes = Array.from({ length: 1000 }, (_, i) => client.set(`slow:${i}`, String(i)));
  const read = client.get('slow:999');
  const result = await slow;
  expect(result.error).toBeInstanceOf(RespireTimeoutError);
  expect((result.error as RespireTimeoutError).written).toBe(true);
  expect(await Promise.all(writes)).toEqual(Array.from({ length: 1000 }, () => 'OK'));
  expect(await read).toBe('999');
  expect(await client.send(['CLIENT', 'ID'])).toBe(id);
  expect(client.circuit!.state).toBe('closed');
  expect(client.circuit!.snapshot().failures).toBe(1);
});

it('a black hole still fails the overdue commands at commandTimeout and replaces the connection', async () => {
  const { client, proxy } = await clients.proxied({ commandTimeout: 200, reconnect: () => 10 });
  const id = await client.send(['CLIENT', 'ID']);
  await proxy.setMode('blackhole');
  const lost = await Promise.all([outcome(client.get('hole:a')), outcome(client.set('hole:b', '1'))]);
  expect(lost[0]!.error).toBeInstanceOf(RespireTimeoutError);
  // The first overdue command times out; the connection is replaced with the rest in flight.
  expect(lost[1]!.error).toSatisfy(
    (error) => error instanceof RespireTimeoutError || error instanceof RespireConnectionError,
  );
  expect((lost[1]!.error as RespireConnectionError).written).toBe(true);
  await proxy.setMode('pass');
  expect(await client.send(['CLIENT', 'ID'])).not.toBe(id);
});

it('a short per-command timeout in a black hole does not replace the connection before commandTimeout of silence', async () => {
  const { client, proxy } = await clients.proxied({ commandTimeout: 5_000 });
  const id = await client.send(['CLIENT', 'ID']);
  await proxy.setMode('delay', 400, 'toClient');
  const quick = await outcome(client.get('delay:a', { timeout: 50 }));
  expect(quick.error).toBeInstanceOf(RespireTimeoutError);
  await proxy.setMode('pass');
  expect(await client.get('delay:b')).toBeNull();
  expect(await client.send(['CLIENT', 'ID'])).toBe(id);
});
