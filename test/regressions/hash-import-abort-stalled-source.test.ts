// Regression (issue 13 "Hash imports": `signal` ends the import; "Any other failure (… `signal`)
// ends the import"). An import whose entries stalled (a paginated source waiting on a network that
// never answers) could not be aborted: the signal was looked at only once the next chunk had been
// read, so `run()` never settled and the import kept its connection. The reading of the entries
// now ends with the signal: `run()` rejects with its reason, the temporary key is deleted and the
// connection is given back.
import { describe, expect, it } from 'vitest';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

describe('a hash import whose entries stall', () => {
  it('ends when its signal aborts', async () => {
    const redis = await open({ maxDedicatedConnections: 1 });
    const controller = new AbortController();
    let stalled!: () => void;
    const stalling = new Promise<void>((resolve) => {
      stalled = resolve;
    });
    async function* entries(): AsyncGenerator<[string, string]> {
      for (let i = 0; i < 10; i++) yield [`f${i}`, `v${i}`];
      stalled();
      // The source never answers again.
      await new Promise(() => {});
    }
    const job = redis.importHash('import-stalled:h', entries(), {
      chunkFields: 5,
      replace: true,
      signal: controller.signal,
    });
    const running = outcome(job.run());
    await stalling;
    controller.abort(new Error('shutting down'));
    const { error } = await running;
    expect(error).toEqual(new Error('shutting down'));
    expect(job.resumable).toBe(false);
    expect(await redis.exists('import-stalled:h')).toBe(0);
    await expect.poll(async () => (await redis.send(['KEYS', '*respire-import*'])) as string[]).toEqual([]);
    // Its one dedicated connection was given back: a streamed value can borrow it.
    await redis.set('import-stalled:v', 'x');
    expect(Buffer.concat(await redis.getStream('import-stalled:v').toArray()).toString()).toBe('x');
  });
});
