// Regression (review of issue 12's Sentinel code): the event monitor's PING check ran on the global
// setInterval and the discovery backoff (backoff.ts Wakeup) on the global setTimeout, not on the
// client's clock (util/timers.ts): a simulated clock never ran either. Both now start through
// startTimer (the monitor's check as a Periodic).
import { expect, it } from 'vitest';
import { Wakeup } from '../../src/sentinel/backoff.js';
import { MONITOR_PING_MS } from '../../src/sentinel/event-monitor.js';
import { parkedClock } from '../kit/parked-clock.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { sentinelClient } from './sentinel-support.js';

const group = useRedisSentinel();

it("the event monitor's PING check runs on the client's clock", async () => {
  const clock = parkedClock(MONITOR_PING_MS);
  // Under MONITOR_PING_MS, so that connects and sentinel replies (bounded by it) are not parked.
  const redis = await sentinelClient(group, { clock, connectTimeout: MONITOR_PING_MS - 100 });
  try {
    const checks = () => clock.parked.filter((timer) => timer.delayMs === MONITOR_PING_MS);
    await waitUntil('the check timer', async () => (checks().length === 1 ? true : `${checks().length}`), {
      timeoutMs: 3_000,
    });
    checks()[0]!.fire();
    // The next check is armed on the same clock, and the client still serves.
    expect(checks()).toHaveLength(1);
    expect(await redis.ping()).toBe('PONG');
  } finally {
    await redis.close();
  }
});

it("a discovery backoff waits on the client's clock and ends when woken", async () => {
  const clock = parkedClock(500);
  const wakeup = new Wakeup(clock);
  let ended = 0;
  void wakeup.pause(700).then(() => ended++);
  void wakeup.pause(900).then(() => ended++);
  expect(clock.parked.map((timer) => timer.delayMs)).toEqual([700, 900]);
  clock.parked[0]!.fire();
  await Promise.resolve();
  expect(ended).toBe(1);
  // A wake ends the other pause and stops its timer.
  wakeup.wake();
  await Promise.resolve();
  expect(ended).toBe(2);
  expect(clock.parked).toEqual([]);
});
