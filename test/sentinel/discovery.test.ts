// Discovery against a real sentinel group (issue 12 "Discovery"): the primary confirmed by ROLE
// in RESP3 and RESP2, the replicas, the two distinct failures (unknown service, no sentinel
// reachable), a dead sentinel ahead of live ones, sentinels learned with SENTINEL SENTINELS, and a
// candidate whose ROLE disagrees.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/errors.js';
import { SentinelWatcher } from '../../src/sentinel/index.js';
import { MAX_ROUNDS } from '../../src/sentinel/primary-discovery.js';
import { systemClock } from '../../src/util/clock.js';
import { systemRandom } from '../../src/util/random.js';
import { type FakeServer, HELLO_3_REPLY, startFakeServer } from '../kit/fake-server.js';
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

/**
 * A fake sentinel (test/kit/fake-server.ts): a real sentinel never names a replica as the primary
 * on demand, which is what a stale sentinel does after a failover (PROTOCOL.md §3.4). It names
 * `answers[i]` at the i-th ask (the last one from then on), knows no other sentinel, and refuses
 * SUBSCRIBE, so only discovery asks it anything.
 */
async function lyingSentinel(
  answers: readonly { port: number }[],
): Promise<FakeServer & { asks: () => number }> {
  let asks = 0;
  const server = await startFakeServer({
    script: [],
    fallback: ([name, sub]) => {
      const command = `${name} ${sub ?? ''}`.toUpperCase().trim();
      if (command.startsWith('HELLO')) return HELLO_3_REPLY;
      if (command === 'SENTINEL GET-MASTER-ADDR-BY-NAME') {
        const port = String(answers[Math.min(asks++, answers.length - 1)]!.port);
        return `*2\r\n$9\r\n127.0.0.1\r\n$${port.length}\r\n${port}\r\n`;
      }
      if (command === 'SENTINEL SENTINELS') return '*0\r\n';
      return '-ERR not here\r\n';
    },
  });
  return Object.assign(server, { asks: () => asks });
}

describe('SentinelWatcher ROLE checks (fake sentinel)', () => {
  it('backs off and asks again when the named primary still says ROLE slave', async () => {
    const fake = await lyingSentinel([group.replicas[0]!, group.primary]);
    try {
      const watcher = await watch(group, {
        sentinel: { endpoints: [`${fake.host}:${fake.port}`] },
        random: { random: () => 0 },
      });
      expect(watcher.primary.port).toBe(group.primary.port);
      expect(fake.asks()).toBe(2);
    } finally {
      await fake.close();
    }
  });

  it('gives up after a bounded number of rounds when the candidate never says master', async () => {
    const fake = await lyingSentinel([group.replicas[0]!]);
    try {
      const error = await SentinelWatcher.start({
        sentinel: sentinelOptions(group, { endpoints: [`${fake.host}:${fake.port}`] }),
        data: { tls: undefined, connectTimeout: 2000 },
        clock: systemClock,
        random: { random: () => 0 },
      }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect((error as Error).message).toBe(
        `the sentinels of "mymaster" name 127.0.0.1:${group.replicas[0]!.port} as its primary, but it says ROLE slave after ${MAX_ROUNDS} tries`,
      );
      expect(fake.asks()).toBe(MAX_ROUNDS);
    } finally {
      await fake.close();
    }
  });
});
