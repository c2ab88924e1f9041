// Regression (issue 13 "Durability batches": WAIT, or WAITAOF when AOF confirmations are asked).
// `aofLocal: false` asks for no AOF confirmation, as leaving it out does, but any `aofLocal` given
// made the batch send WAITAOF: on Redis before 7.2 (no WAITAOF) a batch built from a config whose
// AOF flag was off lost its acknowledgement to "unknown command 'WAITAOF'". It now sends WAIT.
import { describe, expect, it } from 'vitest';
import { useTestClients } from '../client/support.js';
import { portsOf, recordWrites } from '../client/write-spy.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

describe('a durability batch with aofLocal: false', () => {
  it('sends WAIT, as without aofLocal, and is acknowledged', async () => {
    const redis = await open();
    const writes = recordWrites(() => server.port);
    const batch = redis.durable({ replicas: 0, aofLocal: false, timeout: 100 });
    batch.set('durable-aof-false:k', '1');
    const report = await batch.execute();
    expect(report.acknowledgementError).toBeUndefined();
    expect(report.acknowledged).toBe(true);
    expect(report.writes[0]).toMatchObject({ applied: true, acknowledged: true, aofLocal: null });
    expect(portsOf(writes, 'WAIT')).toHaveLength(1);
    expect(portsOf(writes, 'WAITAOF')).toEqual([]);
  });

  it('with aofReplicas given still sends WAITAOF, asking no local AOF', async () => {
    const redis = await open();
    const writes = recordWrites(() => server.port);
    const batch = redis.durable({ replicas: 0, aofLocal: false, aofReplicas: 0, timeout: 100 });
    batch.set('durable-aof-false:k2', '1');
    const report = await batch.execute();
    // Redis 7.0 has no WAITAOF: its unknown-command error is the acknowledgement's.
    expect(report.acknowledgementError?.message).toMatch(/WAITAOF failed/);
    expect(portsOf(writes, 'WAITAOF')).toHaveLength(1);
  });
});
