// A durability batch (`durable()`) is written on a dedicated connection it borrows from the node
// of its keys. One still borrowing that connection when the failover group switched was written
// on the old member after the switch, on a member the group had left (issue 14 "Switching":
// commands not yet accepted by the old member move to the new one, or, never written, fail).
import { describe, expect, it } from 'vitest';
import { useGroups, withClient } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe('a durability batch borrowing its connection when the group switches', () => {
  it('writes nothing on the member the group left', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const batch = group.client.durable({ replicas: 0, timeout: 100 });
    void batch.set('fg:durable', 'written').catch(() => undefined);
    const executed = batch.execute().then(
      (report) => report,
      (error: unknown) => error,
    );
    await Promise.resolve();
    group.switchTo('west');
    await executed;
    expect(await withClient(east.port, (client) => client.get('fg:durable'))).toBeNull();
  });
});
