// `signal` of getStream, setFromStream and importHash (issue 13): it must end the operation while
// it waits for a dedicated connection too (all `maxDedicatedConnections` lent), with the signal's
// reason, as it does a blocking command's wait; not sit out `acquireTimeout` and then fail with
// the pool's timeout. A connection that frees up afterwards goes back to the pool unused.
import { describe, expect, it } from 'vitest';
import { RespireTimeoutError } from '../../src/index.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);
const VALUE_BYTES = 4 * 1024 * 1024;

describe('a signal aborted while waiting for a dedicated connection', () => {
  it('rejects getStream, setFromStream and importHash with its reason, and leaks no connection', async () => {
    const redis = await open({ maxDedicatedConnections: 1, acquireTimeout: 3_000 });
    await redis.setFromStream('abort:big', [Buffer.alloc(VALUE_BYTES, 1)], { length: VALUE_BYTES });
    // The only dedicated connection: a stream nobody reads holds it.
    const holder = redis.getStream('abort:big', { highWaterMark: 1024 });
    await new Promise((resolve) => holder.once('readable', resolve));

    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    const stream = redis.getStream('abort:big', { signal: controller.signal });
    const streamFailed = new Promise((resolve) => stream.once('error', resolve));
    const upload = outcome(redis.setFromStream('abort:up', ['x'], { length: 1, signal: controller.signal }));
    const job = redis.importHash('abort:hash', [['f', 'v']], { chunkFields: 1, signal: controller.signal });
    const imported = outcome(job.run());
    setImmediate(() => controller.abort(reason));

    expect(await streamFailed).toBe(reason);
    expect((await upload).error).toBe(reason);
    expect((await imported).error).toBe(reason);
    expect((await upload).error).not.toBeInstanceOf(RespireTimeoutError);

    holder.destroy();
    expect(await redis.setFromStream('abort:after', ['y'], { length: 1 })).toBe(true);
    expect(await redis.exists(['abort:up', 'abort:hash'])).toBe(0);
  });
});
