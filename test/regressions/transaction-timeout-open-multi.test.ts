// Regression (issue 10 review): with per-command reply deadlines a connection survives a timeout,
// so a transaction that times out after MULTI was written but before EXEC was (EXEC still queued
// behind a large entry the socket has not drained) left an open MULTI on a live connection: the
// next command on it was queued inside the transaction and got "QUEUED" as its reply. A transaction
// ended with MULTI out and EXEC unwritten must be closed with DISCARD (transaction-run.ts).
import { expect, it } from 'vitest';
import { RespireTimeoutError } from '../../src/index.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients = useTestClients(useRedisServer());
/** Larger than what the loopback socket buffers absorb, so the write waits for drain. */
const BIG = Buffer.alloc(48 * 1024 * 1024, 'x');

it('a transaction timed out before EXEC was written leaves no open MULTI on the shared connection', async () => {
  const { client, proxy } = await clients.proxied({ commandTimeout: 10_000 }, { maxQueuedBytes: 1024 });
  const id = await client.send(['CLIENT', 'ID']);
  await proxy.setMode('blackhole');
  const tx = client.multi();
  tx.set('open-multi:big', BIG);
  const result = await outcome(tx.exec({ timeout: 100 }));
  expect(result.error).toBeInstanceOf(RespireTimeoutError);
  await proxy.setMode('pass');
  expect(await client.get('open-multi:other')).toBeNull();
  expect(await client.exists('open-multi:big')).toBe(0);
  expect(await client.send(['CLIENT', 'ID'])).toBe(id);
});

it('a WATCH session whose commit timed out before EXEC was written gives back no open MULTI', async () => {
  const { client, proxy } = await clients.proxied(
    { commandTimeout: 10_000, maxDedicatedConnections: 1 },
    { maxQueuedBytes: 1024 },
  );
  const session = await client.watch('open-multi:watched');
  await proxy.setMode('blackhole');
  const tx = session.multi();
  tx.set('open-multi:watched', BIG);
  expect((await outcome(tx.exec({ timeout: 100 }))).error).toBeInstanceOf(RespireTimeoutError);
  await proxy.setMode('pass');
  // The one dedicated connection, once given back, serves the next session.
  const next = await client.watch('open-multi:next');
  expect(await next.get('open-multi:next')).toBeNull();
  await next.release();
  expect(await client.exists('open-multi:watched')).toBe(0);
});
