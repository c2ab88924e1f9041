// The Sentinel kit: start and agreement, a planned failover, a SIGKILLed primary and its return as
// a replica, and credentials, checked through the sentinels' and data nodes' own answers.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adminCommand, fieldsOf, type Reply, ReplyError } from './admin-command.js';
import { isProcessAlive } from './process-alive.js';
import { type RedisSentinelGroup, startRedisSentinel } from './redis-sentinel.js';
import { useRedisSentinel } from './vitest-redis.js';

const group = useRedisSentinel();

async function reportedPrimaries(target: RedisSentinelGroup): Promise<Reply[]> {
  return Promise.all(
    target.sentinels.map((_, index) =>
      target.sentinelCommand(index, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', target.serviceName]),
    ),
  );
}

async function role(target: RedisSentinelGroup, port: number): Promise<Reply[]> {
  return (await target.command({ port }, ['ROLE'])) as Reply[];
}

describe('startRedisSentinel', () => {
  it('starts a primary with two replicas and three sentinels that all know them and each other', async () => {
    const { primary, replicas, sentinels } = group;
    expect(replicas).toHaveLength(2);
    expect(sentinels).toHaveLength(3);
    expect(await reportedPrimaries(group)).toEqual(Array(3).fill(['127.0.0.1', String(primary.port)]));
    expect((await role(group, primary.port))[0]).toBe('master');
    for (const replica of replicas) {
      expect((await role(group, replica.port)).slice(0, 4)).toEqual([
        'slave',
        '127.0.0.1',
        primary.port,
        'connected',
      ]);
    }
    for (let index = 0; index < 3; index++) {
      const master = fieldsOf(await group.sentinelCommand(index, ['SENTINEL', 'MASTER', 'mymaster']));
      expect(master).toMatchObject({ flags: 'master', quorum: '2', 'down-after-milliseconds': '2000' });
      const listed = (await group.sentinelCommand(index, ['SENTINEL', 'REPLICAS', 'mymaster'])) as Reply[];
      expect(listed.map((entry) => Number(fieldsOf(entry).port)).sort()).toEqual(
        replicas.map((replica) => replica.port).sort(),
      );
      expect(await group.sentinelCommand(index, ['SENTINEL', 'SENTINELS', 'mymaster'])).toHaveLength(2);
    }
  });

  it('fails over on SENTINEL FAILOVER, and the old primary ends up replicating the new one', async () => {
    const old = group.primary;
    const promoted = await group.failover();
    expect(promoted.port).not.toBe(old.port);
    expect(group.primary.port).toBe(promoted.port);
    expect(await reportedPrimaries(group)).toEqual(Array(3).fill(['127.0.0.1', String(promoted.port)]));
    expect((await role(group, promoted.port))[0]).toBe('master');
    expect((await role(group, old.port)).slice(0, 4)).toEqual([
      'slave',
      '127.0.0.1',
      promoted.port,
      'connected',
    ]);
  });

  it('promotes a replica after a SIGKILL of the primary, and the old primary comes back as a replica', async () => {
    const old = group.primary;
    const pid = group.dataServer(old).pid;
    const promoted = await group.killPrimary();
    expect(isProcessAlive(pid)).toBe(false);
    expect(promoted.port).not.toBe(old.port);
    expect(group.dataNodes.find((node) => node.port === old.port)?.running).toBe(false);
    expect(await reportedPrimaries(group)).toEqual(Array(3).fill(['127.0.0.1', String(promoted.port)]));

    await group.restartDataNode(old);
    expect(group.dataNodes.find((node) => node.port === old.port)).toMatchObject({
      running: true,
      role: 'replica',
    });
    expect((await role(group, old.port)).slice(0, 4)).toEqual([
      'slave',
      '127.0.0.1',
      promoted.port,
      'connected',
    ]);
    // Sentinel's own timers set the pace: no second failover of a primary within 2 × failover-timeout
    // of the planned one above, then about 10 s before the old primary is converted.
  }, 90_000);
});

describe('startRedisSentinel options', () => {
  it('puts a password on the sentinels and an ACL user on the data nodes, and stop ends everything', async () => {
    let secured: RedisSentinelGroup | undefined = await startRedisSentinel({
      serviceName: 'secured',
      replicas: 1,
      sentinelPassword: 'sentinel-secret',
      dataAuth: { username: 'app', password: 'data-secret' },
    });
    try {
      const [sentinel] = secured.sentinels;
      await expect(adminCommand(sentinel!, ['PING'])).rejects.toThrow(ReplyError);
      await expect(adminCommand({ ...sentinel!, password: 'sentinel-secret' }, ['PING'])).resolves.toBe(
        'PONG',
      );
      const { primary } = secured;
      await expect(adminCommand(primary, ['SET', 'k', 'v'])).rejects.toThrow(/NOAUTH/);
      const asApp = { ...primary, username: 'app', password: 'data-secret' };
      expect(await adminCommand(asApp, ['SET', 'k', 'v'])).toBe('OK');
      expect((await role(secured, secured.replicas[0]!.port))[3]).toBe('connected');
      expect(await secured.sentinelCommand(0, ['SENTINEL', 'SENTINELS', 'secured'])).toHaveLength(2);

      const servers = [
        ...secured.dataNodes.map((node) => secured!.dataServer(node)),
        secured.sentinelServer(0),
      ];
      await secured.stop();
      secured = undefined;
      for (const server of servers) {
        expect(isProcessAlive(server.pid)).toBe(false);
        expect(existsSync(server.dir)).toBe(false);
      }
    } finally {
      await secured?.stop();
    }
  });
});
