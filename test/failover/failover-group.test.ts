// RespireFailoverGroup against real servers (issue 14): the active member is the healthy one with
// the highest weight; the group client's helpers, batches, transactions and views go to it; a
// manual switch moves subscriptions and ends WATCH sessions with a clear error; metrics.
import { describe, expect, it } from 'vitest';
import {
  RespireCircuitOpenError,
  RespireClient,
  RespireConfigurationError,
  RespireConnectionError,
  type RespireMeter,
  RespireTimeoutError,
} from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { HEALTH, recordSwitches, useGroups, withClient } from './support.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

function valueOn(port: number, key: string): Promise<string | null> {
  return withClient(port, (client) => client.get(key));
}

describe('RespireFailoverGroup', () => {
  it('sends helpers, batches, transactions, WATCH sessions and views to the highest-weight member', async () => {
    const group = await groups.connect({ east: east.port, west: west.port });
    expect(group.active).toBe('east');
    const redis = group.client;
    await redis.set('fg:plain', 'east');
    const batch = redis.batch();
    const set = batch.set('fg:batch', '1');
    await batch.execute();
    expect(await set).toBe('OK');
    const tx = redis.multi();
    tx.incr('fg:tx');
    tx.incr('fg:tx');
    expect(await tx.exec()).toEqual([1, 2]);
    const session = await redis.watch(['fg:watched']);
    const watchedTx = session.multi();
    watchedTx.set('fg:watched', 'yes');
    expect(await watchedTx.exec()).toEqual(['OK']);
    await redis.withKeyPrefix('app:').set('fg:view', 'v');
    for (const [key, value] of [
      ['fg:plain', 'east'],
      ['fg:batch', '1'],
      ['fg:tx', '2'],
      ['fg:watched', 'yes'],
      ['app:fg:view', 'v'],
    ] as const) {
      expect(await valueOn(east.port, key)).toBe(value);
      expect(await valueOn(west.port, key)).toBeNull();
    }
    expect(redis.endpoint.port).toBe(east.port);
  });

  it('switches by hand: new commands and subscriptions go to the new member, WATCH sessions end', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const switches = recordSwitches(group);
    const messages: string[] = [];
    await group.client.subscribe(['fg:news', 'fg:sports'], (message) => messages.push(String(message)));
    const session = await group.client.watch(['fg:w']);
    await withClient(west.port, (client) => client.send(['CONFIG', 'RESETSTAT']));

    group.switchTo('west');
    expect(group.active).toBe('west');
    expect(switches.all.map(({ from, to, reason }) => [from, to, reason])).toEqual([
      ['east', 'west', 'manual'],
    ]);

    await group.client.set('fg:manual', 'west');
    expect(await valueOn(west.port, 'fg:manual')).toBe('west');
    expect(await valueOn(east.port, 'fg:manual')).toBeNull();

    const ended = await session.get('fg:w').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ended).toBeInstanceOf(RespireConnectionError);
    expect((ended as Error).message).toMatch(/switched from east to west.*WATCH session ended/);

    // The subscription is made again on west and dropped from east.
    const westPublisher = await RespireClient.connect({
      endpoints: [{ host: '127.0.0.1', port: west.port }],
    });
    const eastPublisher = await RespireClient.connect({
      endpoints: [{ host: '127.0.0.1', port: east.port }],
    });
    try {
      await waitUntil(
        'the subscription on west and none on east',
        async () => {
          const onWest = await westPublisher.send(['PUBSUB', 'NUMSUB', 'fg:news']);
          const onEast = await eastPublisher.send(['PUBSUB', 'NUMSUB', 'fg:news']);
          return JSON.stringify([onWest, onEast]) ===
            JSON.stringify([
              ['fg:news', 1],
              ['fg:news', 0],
            ])
            ? true
            : JSON.stringify([onWest, onEast]);
        },
        { timeoutMs: 5_000 },
      );
      // Both channels of the listener in one SUBSCRIBE.
      const stats = String(await westPublisher.send(['INFO', 'commandstats']));
      expect(/cmdstat_subscribe:calls=(\d+)/.exec(stats)?.[1]).toBe('1');
      await westPublisher.publish('fg:news', 'from west');
      await waitUntil('the message', async () => (messages.length > 0 ? true : 'none yet'), {
        timeoutMs: 5_000,
      });
      expect(messages).toEqual(['from west']);
    } finally {
      await westPublisher.close();
      await eastPublisher.close();
    }
  });

  it('refuses to switch to an unknown member', async () => {
    const group = await groups.connect({ east: east.port, west: west.port });
    let thrown: unknown;
    try {
      group.switchTo('north');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RespireConfigurationError);
    expect((thrown as RespireConfigurationError).option).toBe('name');
    expect(group.active).toBe('east');
  });

  it('reports switches and the active member as respire.failover.* metrics only', async () => {
    const adds: { name: string; tags: Record<string, unknown> }[] = [];
    let observe:
      | ((result: { observe(value: number, tags?: Record<string, unknown>): void }) => void)
      | undefined;
    const meter = {
      createCounter: (name: string) => ({
        add: (_: number, tags: Record<string, unknown> = {}) => adds.push({ name, tags }),
      }),
      createObservableGauge: () => ({
        addCallback: (callback: typeof observe) => {
          observe = callback;
        },
      }),
    } as RespireMeter;
    const group = await groups.connect(
      { east: east.port, west: west.port },
      { meter, failbackDelay: 600_000 },
    );
    group.switchTo('west');
    const switches = adds.filter(({ name }) => name === 'respire.failover.switches');
    expect(switches).toHaveLength(1);
    expect(switches[0]!.tags).toMatchObject({
      'respire.failover.from': 'east',
      'respire.failover.to': 'west',
      'respire.failover.reason': 'manual',
    });
    const observed: [unknown, number][] = [];
    observe!({ observe: (value, tags) => observed.push([tags?.['respire.failover.member'], value]) });
    expect(observed).toEqual([
      ['east', 0],
      ['west', 1],
    ]);
    // The probes report nothing but respire.failover.*: no circuit or command metric from them.
    expect(adds.every(({ name }) => name.startsWith('respire.failover.'))).toBe(true);
  });

  it('keeps probing and stays on a member whose own circuit is open (seed 000 "Limits")', async () => {
    let probes = 0;
    const group = await groups.connect(
      { east: east.port, west: west.port },
      {
        member: {
          circuitBreaker: { minimumFailureCount: 1, failureRateThreshold: 0.1, openDuration: 600_000 },
        },
        healthCheck: {
          ...HEALTH,
          probe: (client) => {
            probes++;
            return client.ping();
          },
        },
      },
    );
    const switches = recordSwitches(group);
    // One timed-out command opens east's own circuit: its commands are rejected without sending.
    await expect(group.client.send(['DEBUG', 'SLEEP', '0.3'], { timeout: 20 })).rejects.toBeInstanceOf(
      RespireTimeoutError,
    );
    expect(group.client.circuit?.state).toBe('open');
    await expect(group.client.get('fg:any')).rejects.toBeInstanceOf(RespireCircuitOpenError);
    const seen = probes;
    await waitUntil(
      'more probes',
      async () => (probes >= seen + 2 * HEALTH.failuresToSwitch ? true : `${probes}`),
      {
        timeoutMs: 10_000,
      },
    );
    expect(group.active).toBe('east');
    expect(switches.all).toEqual([]);
  });
});
