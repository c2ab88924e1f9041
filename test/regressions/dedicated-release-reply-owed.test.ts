// Regression (issue 13: durability batches and streamed values share the dedicated connections).
// A durability batch whose write was aborted after it was written (its reply still owed) gave its
// connection back to the pool as it was, the reply on its way. The next streamed value to borrow
// it found a reply in flight and failed with "the dedicated connection closed before the streamed
// value started", though nothing was wrong with the endpoint. The pool now closes a connection
// given back with replies owed, as one whose state cannot be trusted, and lends a fresh one.
import { describe, expect, it } from 'vitest';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { proxied } = useTestClients(server);

describe('a dedicated connection given back with a reply owed', () => {
  it('is not lent to a streamed value: the stream reads its value', async () => {
    const { proxy, client } = await proxied({ maxDedicatedConnections: 1 });
    await client.set('owed:value', 'hello');
    // The one dedicated connection is open and idle: the batch below writes only its SET.
    const warm = client.durable({ replicas: 0, timeout: 100 });
    warm.set('owed:warm', '1');
    expect((await warm.execute()).acknowledged).toBe(true);
    // Replies take a while: the write is out, its reply is not back when the signal aborts.
    await proxy.setMode('delay', 1_500, 'toClient');
    const controller = new AbortController();
    const batch = client.durable({ replicas: 0, timeout: 100 });
    const write = batch.set('owed:k', 'v', { signal: controller.signal });
    const before = proxy.bytesFromClient;
    const executed = batch.execute();
    await expect.poll(() => proxy.bytesFromClient > before, { timeout: 5_000 }).toBe(true);
    controller.abort(new Error('the caller gave up'));
    await expect(write).rejects.toThrow('the caller gave up');
    const report = await executed;
    expect(report.acknowledgementError?.message).toMatch(/WAIT was not sent: write 0 failed/);
    const stream = client.getStream('owed:value');
    expect(await stream.valueLength).toBe(5);
    expect(Buffer.concat(await stream.toArray()).toString()).toBe('hello');
  });
});
