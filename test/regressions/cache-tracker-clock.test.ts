// The client-side cache's tracking connection was checked with PING on the global setInterval,
// not on the client's clock (util/timers.ts): a simulated clock never ran the check. It now
// starts through startTimer (a Ticker), as the failover group's probes do.
import { describe, expect, it } from 'vitest';
import { HEALTH_CHECK_INTERVAL_MS } from '../../src/client/cache/tracker.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { parkedClock } from './parked-clock.js';

const server = useRedisServer();
const kit = useTestClients(server);

describe('the cache tracking connection', () => {
  it("is checked every interval on the client's clock", async () => {
    const clock = parkedClock(HEALTH_CHECK_INTERVAL_MS);
    const client = await kit.open({ clientSideCache: { maxEntries: 100 }, clock });
    const checks = () => clock.parked.filter((timer) => timer.delayMs === HEALTH_CHECK_INTERVAL_MS);
    await waitUntil('the check timer', async () => (checks().length === 1 ? true : `${checks().length}`), {
      timeoutMs: 3_000,
    });
    checks()[0]!.fire();
    // The next check is armed on the same clock, and the client still serves.
    expect(checks()).toHaveLength(1);
    expect(await client.ping()).toBe('PONG');
  });
});
