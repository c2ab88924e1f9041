// Regression (issue 13 "Durability batches", seed 000 "A failed write prevents the
// acknowledgement"): a durability batch's write queued with `{ fireAndForget: true }` resolved as
// soon as it was written and its reply was read and dropped, so a write the server refused
// (WRONGTYPE) counted as applied, WAIT was sent after it, and the report said the write was applied
// and acknowledged by the replicas, which never saw it.
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { portsOf, recordWrites } from '../client/write-spy.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

describe('a fire-and-forget write in a durability batch', () => {
  it('that the server refuses is reported failed, and WAIT is not sent', async () => {
    const redis = await open();
    await redis.rpush('durable-ff:list', 'x');
    const writes = recordWrites(() => server.port);
    const batch = redis.durable({ replicas: 0, timeout: 100 });
    const wrong = batch.incr('durable-ff:list', { fireAndForget: true });
    const report = await batch.execute();
    await expect(wrong).rejects.toBeInstanceOf(RespireServerError);
    expect(report.writes[0]).toMatchObject({ applied: false, acknowledged: false });
    expect(report.acknowledged).toBe(false);
    expect(report.acknowledgementError?.message).toMatch(/WAIT was not sent: write 0 failed/);
    expect(portsOf(writes, 'WAIT')).toEqual([]);
  });

  it('that the server applies is reported with its reply and acknowledged', async () => {
    const redis = await open();
    const batch = redis.durable({ replicas: 0, timeout: 100 });
    const write = batch.incr('durable-ff:n', { fireAndForget: true });
    const report = await batch.execute();
    expect(await write).toBe(1);
    expect(report.writes[0]).toMatchObject({ applied: true, value: 1, acknowledged: true });
  });
});
