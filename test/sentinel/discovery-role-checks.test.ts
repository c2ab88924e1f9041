// Discovery (issue 12 "Discovery"; PROTOCOL.md §3.4) when the sentinels name a node whose ROLE
// disagrees: a fake sentinel names a real replica, then the real primary, of two plain
// redis-servers (one REPLICAOF the other). No sentinel group, so no wait for the machine's
// topology slot (test/kit/topology-gate.ts): the giving-up test spends its ~6 s of backoff outside
// the chain of files that hold it.
import { beforeAll, describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/errors.js';
import { SentinelWatcher } from '../../src/sentinel/index.js';
import { MAX_ROUNDS } from '../../src/sentinel/primary-discovery.js';
import { systemClock } from '../../src/util/clock.js';
import { adminCommand } from '../kit/admin-command.js';
import { type FakeServer, HELLO_3_REPLY, startFakeServer } from '../kit/fake-server.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { sentinelOptions, type WatchedGroup, watch } from './support.js';

const primary = useRedisServer();
const replica = useRedisServer();

beforeAll(async () => {
  await adminCommand(replica, ['REPLICAOF', primary.host, String(primary.port)]);
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

/** A stand-in group whose one sentinel is `fake`, for `watch` and `sentinelOptions`. */
function faked(fake: FakeServer): WatchedGroup {
  return { serviceName: 'mymaster', sentinels: [{ host: fake.host, port: fake.port }] };
}

describe('SentinelWatcher ROLE checks (fake sentinel)', () => {
  it('backs off and asks again when the named primary still says ROLE slave', async () => {
    const fake = await lyingSentinel([replica, primary]);
    try {
      const watcher = await watch(faked(fake), { random: { random: () => 0 } });
      expect(watcher.primary.port).toBe(primary.port);
      expect(fake.asks()).toBe(2);
    } finally {
      await fake.close();
    }
  });

  it('gives up after a bounded number of rounds when the candidate never says master', async () => {
    const fake = await lyingSentinel([replica]);
    try {
      const error = await SentinelWatcher.start({
        sentinel: sentinelOptions(faked(fake)),
        data: { tls: undefined, connectTimeout: 2000 },
        clock: systemClock,
        random: { random: () => 0 },
      }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect((error as Error).message).toBe(
        `the sentinels of "mymaster" name 127.0.0.1:${replica.port} as its primary, but it says ROLE slave after ${MAX_ROUNDS} tries`,
      );
      expect(fake.asks()).toBe(MAX_ROUNDS);
    } finally {
      await fake.close();
    }
  });
});
