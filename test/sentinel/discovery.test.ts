// Discovery against a real sentinel group (issue 12 "Discovery"): the primary confirmed by ROLE
// in RESP3 and RESP2, the replicas, the two distinct failures (unknown service, no sentinel
// reachable), a dead sentinel ahead of live ones, sentinels learned with SENTINEL SENTINELS. (A
// candidate whose ROLE disagrees: discovery-role-checks.test.ts, without a group.)
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/errors.js';
import { SentinelWatcher } from '../../src/sentinel/index.js';
import { systemClock } from '../../src/util/clock.js';
import { systemRandom } from '../../src/util/random.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { closedPort, ports, sentinelOptions, watch } from './support.js';

const group = useRedisSentinel();

describe('SentinelWatcher discovery', () => {
  for (const protocol of [3, 2] as const) {
    it(`finds the primary and the replicas over RESP${protocol}, each confirmed by ROLE`, async () => {
      const watcher = await watch(group, {
        data: { tls: undefined, connectTimeout: 2000, protocol },
        watchReplicas: true,
      });
      expect(watcher.primary).toEqual({ host: group.primary.host, port: group.primary.port });
      expect(ports(watcher.replicas())).toEqual(ports(group.replicas));
      expect(((await group.command(watcher.primary, ['ROLE'])) as unknown[])[0]).toBe('master');
      // Subscribed to one of the sentinels for events.
      expect(ports(group.sentinels)).toContain(watcher.monitoredSentinel?.port);
    });
  }

  it('fails with an error naming the service when no sentinel knows it', async () => {
    const error = await SentinelWatcher.start({
      sentinel: sentinelOptions(group, { serviceName: 'no-such-service' }),
      data: { tls: undefined, connectTimeout: 2000 },
      clock: systemClock,
      random: systemRandom,
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as Error).message).toMatch(/^no sentinel knows the service "no-such-service" \(asked /);
    for (const sentinel of group.sentinels) expect((error as Error).message).toContain(`:${sentinel.port}`);
  });

  it('fails with a different error naming the service and the sentinels when none is reachable', async () => {
    const dead = [await closedPort(), await closedPort()];
    const error = await SentinelWatcher.start({
      sentinel: sentinelOptions(group, { endpoints: dead.map(({ host, port }) => `${host}:${port}`) }),
      data: { tls: undefined, connectTimeout: 2000 },
      clock: systemClock,
      random: systemRandom,
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RespireConnectionError);
    const { message } = error as Error;
    expect(message).toMatch(/^no sentinel of the service "mymaster" is reachable \(tried /);
    for (const { port } of dead) expect(message).toContain(`127.0.0.1:${port}`);
    expect(message).not.toMatch(/knows/);
  });

  it('asks the next sentinel when the first is down, and moves the one that answered to the front', async () => {
    const dead = await closedPort();
    const [first, second] = group.sentinels;
    const endpoints = [dead, first!, second!].map(({ host, port }) => `${host}:${port}`);
    const watcher = await watch(group, { sentinel: { endpoints } });
    expect(watcher.primary.port).toBe(group.primary.port);
    const order = watcher.sentinels().map((sentinel) => sentinel.port);
    expect(order[0]).toBe(first!.port);
    expect(order.slice(0, 3)).toEqual([first!.port, dead.port, second!.port]);
  });

  it('learns the other sentinels from SENTINEL SENTINELS when given only one', async () => {
    const [only] = group.sentinels;
    const watcher = await watch(group, { sentinel: { endpoints: [`${only!.host}:${only!.port}`] } });
    expect(ports(watcher.sentinels())).toEqual(ports(group.sentinels));
    expect(watcher.sentinels()[0]!.port).toBe(only!.port);
  });

  it('resolveAgain shares one resolution between concurrent calls', async () => {
    const watcher = await watch(group);
    const calls = [watcher.resolveAgain('reconnect'), watcher.resolveAgain('readonly')];
    expect(calls[0]).toBe(calls[1]);
    expect(await calls[0]).toEqual(watcher.primary);
  });
});
