// The `cluster` suite's arithmetic and the pieces its blip adds to the outage scenario: the ratio
// to the fastest peer, keys spread over a cluster with each call in its primary's group, and the
// figures of the healthy primaries and of the black-holed one (outage-summary.test.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallLog, Outcome } from '../../bench/outage/call-log.js';
import type { OutageDriver } from '../../bench/outage/drivers/driver.js';
import { Producers } from '../../bench/outage/producers.js';
import type { BenchResult } from '../../bench/suite.js';
import { FASTEST_PEER_UNIT, fastestPeerRatios } from '../../bench/suites/cluster.js';

function rate(name: string, client: string, value: number, unit = 'ops/s'): BenchResult {
  return { suite: 'cluster', case: name, client, value, unit };
}

describe('fastestPeerRatios', () => {
  it('divides Respire’s rate by the fastest peer configuration’s, per case, naming that peer', () => {
    const rows = [
      rate('GET', 'respire', 300),
      rate('GET', 'ioredis Cluster', 100),
      rate('GET', 'node-redis createCluster, no command timeout', 120),
      rate('GET', 'respire', 5, 'CPU µs/op'),
      rate('GET', 'ioredis Cluster', 1, 'CPU µs/op'),
      rate('MGET', 'respire', 10),
      rate('MGET', 'ioredis Cluster auto-pipelining', 40),
      rate('alone', 'respire', 10),
    ];
    expect(fastestPeerRatios(rows)).toEqual([
      rate('GET', 'respire / node-redis createCluster, no command timeout', 2.5, FASTEST_PEER_UNIT),
      rate('MGET', 'respire / ioredis Cluster auto-pipelining', 0.25, FASTEST_PEER_UNIT),
    ]);
  });
});

describe('Producers over a cluster’s keys', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spreads the calls over the keys, a PUBLISH and its XADD on one key, each logged in its key’s group', async () => {
    const calls: string[] = [];
    const driver: OutageDriver = {
      publish: async (channel) => void calls.push(`publish ${channel}`),
      xadd: async (stream) => void calls.push(`xadd ${stream}`),
      classify: () => Outcome.Failed,
    };
    const log = new CallLog(100);
    const options = { producers: 16, callsPerSecond: 1_000, channel: 'c', stream: 's', keys: 3 };
    const producers = new Producers(driver, log, { ...options, groups: Uint8Array.of(0, 1, 0) }, () =>
      Date.now(),
    );
    producers.start();
    await vi.advanceTimersByTimeAsync(10);
    producers.stop();
    expect(calls).toEqual([
      ...['publish c:0', 'xadd s:0', 'publish c:1', 'xadd s:1', 'publish c:2', 'xadd s:2'],
      ...['publish c:0', 'xadd s:0', 'publish c:1', 'xadd s:1'],
    ]);
    expect([...log.groups.subarray(0, log.length)]).toEqual([0, 0, 1, 1, 0, 0, 0, 0, 1, 1]);
    expect(log.counts.completed).toBe(10);
  });

  it('lets each caller see a call settled inside it before the next call, logging when the client settled it', async () => {
    let clock = 0;
    const driver: OutageDriver = {
      // Rejected inside the call (which takes 1 ms of the clock), as an open circuit's rejection is.
      publish: () => {
        clock++;
        return Promise.reject(new Error('open'));
      },
      // Rejected a few microtasks after the call returned.
      xadd: () => {
        clock++;
        return Promise.resolve().then(() => Promise.reject(new Error('later')));
      },
      classify: () => Outcome.RejectedFast,
    };
    const log = new CallLog(100);
    const options = { producers: 16, callsPerSecond: 1_000, channel: 'c', stream: 's', keys: 1 };
    const producers = new Producers(driver, log, options, () => clock);
    producers.start();
    clock = 6; // six calls due at the next release
    await vi.advanceTimersByTimeAsync(5);
    producers.stop();
    expect(log.length).toBe(6);
    for (let i = 0; i < log.length; i += 2) {
      // Seen as soon as the call returned, not behind the calls made after it.
      expect([log.starts[i], log.settles[i], log.ends[i]]).toEqual([6 + i, 7 + i, 7 + i]);
      // Settled after the generator went on (the last one: after it stopped): only its caller's
      // view is known.
      if (i + 2 < log.length) expect(log.ends[i + 1]).toBeGreaterThan(log.starts[i + 1]! + 1);
      expect(log.settles[i + 1]).toBe(log.ends[i + 1]);
    }
  });
});
