// switchTo() on a failover group that was closed still switched: it told onSwitch listeners and
// the switch metric of a switch that moved nothing, and subscribed the old member's listeners
// again on a closed member, which failed and was reported to onPubSubError as a lost
// subscription. A closed group switches no more: switchTo() throws the client's closed error.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { recordSwitches, useGroups } from '../failover/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const east = useRedisServer();
const west = useRedisServer();
const groups = useGroups();

describe('switchTo() on a closed failover group', () => {
  it('throws and switches nothing', async () => {
    const group = await groups.connect({ east: east.port, west: west.port }, { failbackDelay: 600_000 });
    const switches = recordSwitches(group);
    const errors: unknown[] = [];
    group.client.onPubSubError((error) => errors.push(error));
    await group.client.subscribe('fg:closed', () => undefined);
    await group.close();
    expect(() => group.switchTo('west')).toThrow(RespireConnectionError);
    expect(group.active).toBe('east');
    expect(switches.all).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([]);
  });
});
