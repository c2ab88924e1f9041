// RespireFailoverGroup when a member fails (issue 14 "Tests against real servers"): the active
// member's server killed under write load (the group switches within interval × failuresToSwitch
// plus a margin, and every acknowledged write is on a member: the servers fsync every write, so a
// restart from the append-only file shows what the killed one had acknowledged), then brought back
// (failback after the delay); a black-holed member through the fault proxy; commands not yet
// accepted by the old member moving to the new one; a member down when the group connects.
import { describe, expect, it } from 'vitest';
import type { RespireMeter } from '../../src/index.js';
import { outcomeWithin } from '../client/support.js';
import { type FaultProxy, startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { HEALTH, MARGIN_MS, recordSwitches, useGroups, withClient } from './support.js';

const DURABLE = { configLines: ['appendonly yes', 'appendfsync always'] };
const east = useRedisServer(DURABLE);
const west = useRedisServer(DURABLE);
const groups = useGroups();

/** The longest a switch may take after a member stops answering: the probes' rule plus slack. */
const SWITCH_BOUND_MS = HEALTH.interval * HEALTH.failuresToSwitch + HEALTH.timeout + MARGIN_MS;

async function proxyTo(port: number, mode: 'pass' | 'refuse' = 'pass'): Promise<FaultProxy> {
  return startFaultProxy({ target: { host: '127.0.0.1', port }, mode });
}

describe('RespireFailoverGroup under faults', () => {
  it('switches when the active server dies under write load, keeps every acknowledged write, fails back', async () => {
    const group = await groups.connect({ east: east.port, west: west.port });
    const switches = recordSwitches(group);
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (id: number) => {
      for (let i = 0; !stop; i++) {
        const key = `fg:load:${id}:${i}`;
        try {
          await group.client.set(key, key);
          acknowledged.push(key);
        } catch {
          // Not acknowledged: a write in flight when the server died (written, never replayed).
        }
      }
    };
    const writers = Array.from({ length: 16 }, (_, id) => writer(id));
    await waitUntil(
      'writes before the kill',
      async () => (acknowledged.length >= 500 ? true : `${acknowledged.length}`),
      {
        timeoutMs: 10_000,
      },
    );

    const switched = switches.next();
    const killedAt = performance.now();
    east.kill('SIGKILL');
    const change = await outcomeWithin(switched, SWITCH_BOUND_MS);
    expect(change).not.toBe('pending');
    const failover = switches.all[0]!;
    expect([failover.from, failover.to, failover.reason]).toEqual(['east', 'west', 'unhealthy']);
    expect(failover.at - killedAt).toBeLessThanOrEqual(SWITCH_BOUND_MS);

    const atSwitch = acknowledged.length;
    await waitUntil(
      'writes after the switch',
      async () => (acknowledged.length >= atSwitch + 500 ? true : 'few'),
      {
        timeoutMs: 10_000,
      },
    );
    stop = true;
    await Promise.all(writers);

    const failingBack = switches.next();
    // Taken before the restart: a probe may find the server healthy before restart() resolves
    // (its own readiness checks), so the failback delay counts from no earlier than this.
    const backAt = performance.now();
    await east.restart();
    const failback = await failingBack;
    expect([failback.from, failback.to, failback.reason]).toEqual(['west', 'east', 'failback']);
    expect(failback.at - backAt).toBeGreaterThanOrEqual(1_000);
    await group.client.set('fg:after-failback', 'east');

    const missing = await withClient(east.port, (eastClient) =>
      withClient(west.port, async (westClient) => {
        const lost: string[] = [];
        for (let i = 0; i < acknowledged.length; i += 1000) {
          const keys = acknowledged.slice(i, i + 1000);
          const [onEast, onWest] = await Promise.all([eastClient.mget(keys), westClient.mget(keys)]);
          keys.forEach((key, j) => {
            if (onEast[j] !== key && onWest[j] !== key) lost.push(key);
          });
        }
        expect(await eastClient.get('fg:after-failback')).toBe('east');
        return lost;
      }),
    );
    expect(missing).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(1000);
  });

  it('leaves a black-holed member and fails back once it answers again', async () => {
    const proxy = await proxyTo(east.port);
    try {
      const probeFailures: unknown[] = [];
      const meter = {
        createCounter: (name: string) => ({
          add: (_: number, tags?: Record<string, unknown>) => {
            if (name === 'respire.failover.probe.failures')
              probeFailures.push(tags?.['respire.failover.member']);
          },
        }),
      } as RespireMeter;
      const group = await groups.connect({ east: proxy.port, west: west.port }, { meter });
      const switches = recordSwitches(group);
      const switched = switches.next();
      const holedAt = performance.now();
      await proxy.setMode('blackhole');
      expect(await outcomeWithin(switched, SWITCH_BOUND_MS)).not.toBe('pending');
      expect(switches.all.map(({ to, reason }) => [to, reason])).toEqual([['west', 'unhealthy']]);
      expect(switches.all[0]!.at - holedAt).toBeLessThanOrEqual(SWITCH_BOUND_MS);
      expect(probeFailures.length).toBeGreaterThanOrEqual(HEALTH.failuresToSwitch);
      expect(new Set(probeFailures)).toEqual(new Set(['east']));

      await group.client.set('fg:holed', 'west');
      expect(await withClient(west.port, (client) => client.get('fg:holed'))).toBe('west');

      const failingBack = switches.next();
      await proxy.setMode('pass');
      const healedAt = performance.now();
      const failback = await failingBack;
      expect([failback.to, failback.reason]).toEqual(['east', 'failback']);
      expect(failback.at - healedAt).toBeGreaterThanOrEqual(1_000);
    } finally {
      await proxy.stop();
    }
  });

  it('moves commands the old member never accepted to the new one', async () => {
    const proxy = await proxyTo(east.port);
    try {
      const group = await groups.connect(
        { east: proxy.port, west: west.port },
        { failbackDelay: 600_000, member: { acquireTimeout: 10_000 } },
      );
      const switches = recordSwitches(group);
      const switched = switches.next();
      await proxy.setMode('reset');
      const eastNodes = [...group.members[0]!.client!.nodes];
      await waitUntil(
        'east without a connection',
        async () => (eastNodes[0]!.main.current === undefined ? true : 'connected'),
        {
          timeoutMs: 5_000,
        },
      );
      // Queued on east, which cannot write it: it moves at the switch and is admitted on west.
      const pending = group.client.set('fg:moved', 'yes');
      const batch = group.client.batch();
      const fromBatch = batch.incr('fg:moved-count');
      const executed = batch.execute();
      expect(await outcomeWithin(switched, SWITCH_BOUND_MS)).not.toBe('pending');
      expect(await pending).toBe('OK');
      await executed;
      expect(await fromBatch).toBe(1);
      expect(await withClient(west.port, (client) => client.get('fg:moved'))).toBe('yes');
      expect(await withClient(east.port, (client) => client.get('fg:moved'))).toBeNull();
    } finally {
      await proxy.stop();
    }
  });

  it('connects with a member down and fails back to it once its probes pass', async () => {
    const proxy = await proxyTo(east.port, 'refuse');
    try {
      const group = await groups.connect({ east: proxy.port, west: west.port }, { failbackDelay: 300 });
      expect(group.active).toBe('west');
      const switches = recordSwitches(group);
      const failingBack = switches.next();
      await proxy.setMode('pass');
      const change = await failingBack;
      expect([change.from, change.to, change.reason]).toEqual(['west', 'east', 'failback']);
      await group.client.set('fg:late-member', 'east');
      expect(await withClient(east.port, (client) => client.get('fg:late-member'))).toBe('east');
    } finally {
      await proxy.stop();
    }
  });
});
