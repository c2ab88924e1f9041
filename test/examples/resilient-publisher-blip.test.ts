// The resilient publisher across a Redis blip, against a real redis-server behind the fault
// proxy: producers keep publishing while the proxy black-holes Redis; the circuit trips, events
// go to the spool, and after the heal the spool is replayed ahead of new events. Every event
// reaches the stream (read back and deduplicated by key), in order per producer, and no
// `publish` call takes longer than its deadline.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { readUniqueEvents } from '../../examples/resilient-publisher/consumer.js';
import type { LogEntry } from '../../examples/resilient-publisher/monitor.js';
import { ResilientPublisher } from '../../examples/resilient-publisher/publisher.js';
import type { RespireClient } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import type { FaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { expectDelivered, Progress } from './resilient-publisher-kit.js';
import { segmentFiles, useScratchDirs } from './resilient-publisher-spool-kit.js';

const { open, proxied } = useTestClients(useRedisServer());
const scratch = useScratchDirs();
const DEADLINE_MS = 100;
const PRODUCERS = 4;

const cleanups: (() => unknown)[] = [];
// Registered after useTestClients, so it runs first: the publisher closes before its client goes.
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function rig(): Promise<{ proxy: FaultProxy; client: RespireClient; direct: RespireClient }> {
  const { proxy, client } = await proxied({
    commandTimeout: DEADLINE_MS,
    acquireTimeout: DEADLINE_MS,
    connectTimeout: DEADLINE_MS,
    reconnect: () => 10,
    circuitBreaker: {
      failureRateThreshold: 0.5,
      minimumFailureCount: 3,
      // Scaled down from seed 001 so that the successes before the blip age out within half a second:
      // while the spool is in use only replay batches reach Redis, so failures come slowly.
      samplingWindow: 500,
      openDuration: 100,
      halfOpenProbeCount: 2,
    },
  });
  return { proxy, client, direct: await open() };
}

it('delivers every event across a blip, in order per producer, with no caller past its deadline', async () => {
  const { proxy, client, direct } = await rig();
  const progress = new Progress();
  const logs: LogEntry[] = [];
  const directory = scratch();
  const publisher = new ResilientPublisher(client, {
    stream: 'blip:events',
    deadlineMs: DEADLINE_MS,
    // Leaves 40 ms of the deadline for the spool append and a late timer on a busy 2-core machine.
    deadlineReserveMs: 40,
    spool: { directory, fsync: 'interval', segmentBytes: 64 * 1024 },
    replayRetryMs: 20,
    replayTimeoutMs: DEADLINE_MS,
    logger: (entry) => {
      logs.push(entry);
      progress.notify();
    },
  });
  cleanups.push(() => publisher.close());

  // A deadline is kept by a timer, and no timer fires while the event loop is stalled (a GC pause,
  // another process on the 2 shared cores): the bound allows the longest stall measured here.
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  cleanups.push(() => loopDelay.disable());
  const published = new Set<string>();
  const acknowledged = new Set<string>();
  const waits: { ms: number; outcome: string }[] = [];
  let producing = true;
  const producer = async (index: number) => {
    for (let seq = 0; producing; seq++) {
      const key = `blip:p${index}:${seq}`;
      published.add(key);
      const started = performance.now();
      const outcome = await publisher.publish(`event ${seq} of producer ${index}`, { key });
      waits.push({ ms: performance.now() - started, outcome });
      acknowledged.add(key);
      progress.notify();
      await yieldToLoop(); // stands in for the producer's own work
    }
  };
  const producers = Array.from({ length: PRODUCERS }, (_, index) => producer(index));
  cleanups.push(() => {
    producing = false;
    return Promise.allSettled(producers);
  });
  const stats = () => publisher.stats;

  await progress.until('direct deliveries', () => stats().delivered >= 100);
  await proxy.setMode('blackhole');
  await progress.until('a trip and events spooled', () => stats().trips >= 1 && stats().spooled >= 300);
  const callsBeforeHeal = waits.length;
  await proxy.setMode('pass');
  const deliveredAtHeal = stats().delivered;
  await progress.until(
    'a reset and direct deliveries again',
    () => stats().resets >= 1 && stats().delivered >= deliveredAtHeal + 100,
  );
  producing = false;
  await Promise.all(producers);
  await publisher.drained();

  expectDelivered(await readUniqueEvents(direct, 'blip:events'), acknowledged, (key) => published.has(key));
  expect(acknowledged.size).toBe(published.size); // no publish was refused
  const longest = waits.reduce((max, wait) => Math.max(max, wait.ms), 0);
  expect(longest).toBeLessThanOrEqual(DEADLINE_MS + loopDelay.max / 1e6);
  // Once the circuit is open, spooling costs a disk append, not a timeout: a call spooled after
  // its write timed out waits at least the deadline less its reserve (60 ms), one refused by the
  // open circuit a disk append. Half that bound tells them apart without timing the append itself,
  // which a loaded 2-core machine stretches past 5 ms for a tenth of the calls or more.
  const afterTrip = waits.slice(callsBeforeHeal - 200, callsBeforeHeal).map((wait) => wait.ms);
  expect(afterTrip.filter((ms) => ms < (DEADLINE_MS - 40) / 2).length).toBeGreaterThan(180);

  const final = stats();
  expect(final.spooled).toBeGreaterThanOrEqual(300);
  expect(final.replayed).toBe(final.spooled);
  expect(final.spooledEvents).toBe(0);
  expect(segmentFiles(directory)).toEqual([]);
  const events = logs.map((entry) => `${entry.level}:${entry.event}`);
  expect(events).toContain('warn:spooling-started');
  expect(events).toContain('warn:circuit-open');
  expect(events).toContain('info:circuit-closed');
  expect(events).toContain('info:spool-drained');
  expect(events.filter((event) => event === 'warn:circuit-open')).toHaveLength(final.trips);
});
