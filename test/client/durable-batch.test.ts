// `redis.durable(...)` (issue 13 "Durability batches"): writes, then WAIT on the same connection,
// against a real primary with a real replica; WAITAOF's unknown-command error on Redis 7.0 reaching
// the caller; and WAITAOF's answer read against the kit's fake server, since Redis 7.0 has no
// WAITAOF (it is 7.2+; PROTOCOL.md §7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RespireClient,
  RespireConfigurationError,
  RespireError,
  RespireServerError,
  RespireUnsupportedCommandError,
} from '../../src/index.js';
import { startFakeServer } from '../kit/fake-server.js';
import { type RedisServer, startRedisServer } from '../kit/redis-server.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { useTestClients } from './support.js';
import { portsOf, recordWrites } from './write-spy.js';

const primary = useRedisServer();
const { open, track } = useTestClients(primary);
let replica: RedisServer | undefined;

beforeAll(async () => {
  replica = await startRedisServer({ args: ['--replicaof', primary.host, String(primary.port)] });
  const admin = await RespireClient.connect({ endpoints: [{ host: primary.host, port: primary.port }] });
  try {
    await waitUntil(
      'the replica to be online',
      async () => {
        const info = (await admin.send(['INFO', 'replication'])) as string;
        return /slave0:.*state=online/.test(info) || info;
      },
      { timeoutMs: 20_000 },
    );
  } finally {
    await admin.close();
  }
});
afterAll(async () => {
  await replica?.stop();
});

describe('durable() with WAIT against a real replica', () => {
  it('sends the writes, then WAIT on their connection, and reports each write acknowledged', async () => {
    const redis = await open();
    const writes = recordWrites(() => primary.port);
    const batch = redis.durable({ replicas: 1, timeout: 5_000 });
    const set = batch.set('durable:a', '1');
    batch.incr('durable:n');
    const report = await batch.execute();
    expect(await set).toBe('OK');
    expect(report.acknowledged).toBe(true);
    expect(report.acknowledgementError).toBeUndefined();
    expect(report.writes).toEqual([
      { applied: true, value: 'OK', acknowledged: true, replicas: 1, aofLocal: null, aofReplicas: null },
      { applied: true, value: 1, acknowledged: true, replicas: 1, aofLocal: null, aofReplicas: null },
    ]);
    const [set1, incr, wait] = [portsOf(writes, 'SET'), portsOf(writes, 'INCR'), portsOf(writes, 'WAIT')];
    expect([set1.length, incr.length, wait.length]).toEqual([1, 1, 1]);
    expect(new Set([...set1, ...incr, ...wait]).size).toBe(1);
    const onReplica = track(
      await RespireClient.connect({ endpoints: [{ host: replica!.host, port: replica!.port }] }),
    );
    expect(await onReplica.get('durable:a')).toBe('1');
  });

  it('fewer replicas than asked within the timeout: applied, not acknowledged, with the count', async () => {
    const redis = await open();
    const batch = redis.durable({ replicas: 2, timeout: 50 });
    batch.set('durable:b', '1');
    const report = await batch.execute();
    expect(report.acknowledged).toBe(false);
    expect(report.acknowledgementError).toBeUndefined();
    expect(report.writes[0]).toMatchObject({ applied: true, acknowledged: false, replicas: 1 });
  });

  it('a failed write prevents the acknowledgement: WAIT is not sent', async () => {
    const redis = await open();
    await redis.rpush('durable:list', 'x');
    const writes = recordWrites(() => primary.port);
    const batch = redis.durable({ replicas: 1, timeout: 1_000 });
    batch.set('durable:c', '1');
    const wrong = batch.incr('durable:list');
    const report = await batch.execute();
    await expect(wrong).rejects.toBeInstanceOf(RespireServerError);
    expect(portsOf(writes, 'WAIT')).toEqual([]);
    expect(report.acknowledged).toBe(false);
    expect(report.acknowledgementError?.message).toMatch(/WAIT was not sent: write 1 failed/);
    expect(report.writes[0]).toMatchObject({ applied: true, acknowledged: false, replicas: null });
    expect(report.writes[1]).toMatchObject({ applied: false, acknowledged: false });
    expect(await redis.get('durable:c')).toBe('1');
  });

  it('WAITAOF on Redis 7.0: the unknown-command error reaches the caller, the writes stay applied', async () => {
    const redis = await open();
    const batch = redis.durable({ replicas: 0, aofLocal: true, timeout: 100 });
    batch.set('durable:d', '1');
    const report = await batch.execute();
    const error = report.acknowledgementError;
    expect(error).toBeInstanceOf(RespireError);
    expect(error?.message).toMatch(/the 1 writes were applied and cannot be undone, but WAITAOF failed/);
    expect(error?.cause).toBeInstanceOf(RespireServerError);
    expect((error!.cause as Error).message).toMatch(/unknown command 'WAITAOF'/);
    expect(report.writes[0]).toMatchObject({ applied: true, acknowledged: false });
    expect(await redis.get('durable:d')).toBe('1');
  });

  it('an empty batch sends nothing; invalid options name the option', async () => {
    const redis = await open();
    const report = await redis.durable({ replicas: 1, timeout: 10 }).execute();
    expect(report).toEqual({ writes: [], acknowledged: false, acknowledgementError: undefined });
    expect(() => redis.durable({ replicas: -1, timeout: 10 })).toThrow(RespireConfigurationError);
    expect(() => redis.durable({ replicas: 1, timeout: 0 })).toThrow(/timeout/);
  });

  it('runs once, and a refused write fails alone with no WAIT sent', async () => {
    const redis = await open();
    const writes = recordWrites(() => primary.port);
    const batch = redis.durable({ replicas: 1, timeout: 1_000 });
    batch.set('durable:e', '1');
    const select = batch.send(['SELECT', '1']);
    const report = await batch.execute();
    await expect(select).rejects.toBeInstanceOf(RespireUnsupportedCommandError);
    expect(report.writes[0]).toMatchObject({ applied: true, acknowledged: false });
    expect(report.writes[1]).toMatchObject({ applied: false, acknowledged: false });
    expect(portsOf(writes, 'SELECT')).toEqual([]);
    expect(portsOf(writes, 'WAIT')).toEqual([]);
    await expect(batch.execute()).rejects.toBeInstanceOf(TypeError);
    await expect(batch.set('durable:f', '1')).rejects.toBeInstanceOf(TypeError);
    expect(await redis.exists('durable:f')).toBe(0);
  });
});

describe('durable() with WAITAOF', () => {
  // Redis 7.0 has no WAITAOF (7.2+): its answer is scripted here.
  it('reads the local and replica AOF counts of WAITAOF', async () => {
    const fake = await startFakeServer({
      script: [],
      fallback: (args) => {
        const name = args[0]!.toUpperCase();
        if (name === 'WAITAOF') return '*2\r\n:1\r\n:2\r\n';
        return name === 'PING' ? '+PONG\r\n' : '+OK\r\n';
      },
    });
    try {
      const redis = track(
        await RespireClient.connect({ endpoints: [{ host: fake.host, port: fake.port }], protocol: 2 }),
      );
      const batch = redis.durable({ replicas: 1, aofLocal: true, aofReplicas: 2, timeout: 100 });
      batch.set('k', 'v');
      const report = await batch.execute();
      expect(report.writes[0]).toEqual({
        applied: true,
        value: 'OK',
        acknowledged: true,
        replicas: 2,
        aofLocal: 1,
        aofReplicas: 2,
      });
      expect(fake.commands.find((command) => command[0] === 'WAITAOF')).toEqual(['WAITAOF', '1', '2', '100']);
    } finally {
      await fake.close();
    }
  });
});
