// The resilient publisher (examples/resilient-publisher/) logs refused events as `spool-rejected`
// for the 1st and every 1000th refusal, so that a full spool does not write a line per call. The
// count was shared by every cause: after one refusal for a full disk, a failing fsync (a dying
// disk, `SpoolSyncError`) refused events without a single log line until the 1000th refusal, and
// the README's `stats.rejected` said it counted full-spool refusals only. The throttle is now per
// cause (error name and errno code), so each new kind of refusal is logged at once.
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../examples/resilient-publisher/monitor.js';
import { ResilientPublisher } from '../../examples/resilient-publisher/publisher.js';
import { SpoolSyncError } from '../../examples/resilient-publisher/spool-errors.js';
import { useTestClients } from '../client/support.js';
import { FaultyFileSystem } from '../examples/resilient-publisher-faulty-fs.js';
import { useScratchDirs } from '../examples/resilient-publisher-spool-kit.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const { proxied } = useTestClients(useRedisServer());
const scratch = useScratchDirs();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('refusal logs', () => {
  it('log the first refusal of each cause', async () => {
    // Every write to Redis fails fast, so every event goes to the spool.
    const { proxy, client } = await proxied({
      commandTimeout: 50,
      acquireTimeout: 50,
      connectTimeout: 1_000,
      reconnect: () => 10,
      circuitBreaker: null,
    });
    await proxy.setMode('reset');
    const fileSystem = new FaultyFileSystem();
    const logs: LogEntry[] = [];
    const publisher = new ResilientPublisher(client, {
      stream: 'refusals',
      deadlineMs: 100,
      spool: { directory: scratch(), fsync: 'always', fileSystem },
      replayRetryMs: 5,
      logger: (entry) => logs.push(entry),
    });
    cleanups.push(() => publisher.close());
    fileSystem.fail({ call: 'write', code: 'ENOSPC', path: /\.log$/ });
    await expect(publisher.publish('a')).rejects.toMatchObject({ code: 'ENOSPC' });
    fileSystem.fail({ call: 'fsync', code: 'EIO', path: /\.log$/ });
    await expect(publisher.publish('b')).rejects.toBeInstanceOf(SpoolSyncError);
    fileSystem.fail({ call: 'write', code: 'ENOSPC', path: /\.log$/ });
    await expect(publisher.publish('c')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(publisher.stats).toMatchObject({ rejected: 3, spooled: 0, spooledEvents: 0 });
    const refusals = logs.filter((entry) => entry.event === 'spool-rejected');
    expect(refusals.map((entry) => entry.message)).toEqual([
      expect.stringMatching(/ENOSPC/),
      expect.stringMatching(/fsync failed .*EIO.*not spooled/),
    ]);
  });
});
