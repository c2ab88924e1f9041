// A failover member keeps the nodes its client made (member.ts `nodes`), so that a switch can take
// back what they never wrote. Nodes its router dropped (a Sentinel primary replaced, a replica the
// sentinels no longer list, a Cluster node a topology refresh no longer lists) stayed in that set
// for the life of the group, with their connections' state, queues and circuits: a leak that grew
// with every failover of the member's deployment. A node now leaves the set once it is closed.
import { describe, expect, it } from 'vitest';
import { RespireFailoverGroup } from '../../src/index.js';
import { HEALTH } from '../failover/support.js';
import { useRedisSentinel, useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const sentinels = useRedisSentinel();
const standalone = useRedisServer();

describe("a failover member's nodes", () => {
  it('let go of the nodes a Sentinel failover replaced', async () => {
    const group = await RespireFailoverGroup.connect({
      members: [
        {
          name: 'sentinel',
          weight: 2,
          options: {
            sentinel: { serviceName: sentinels.serviceName, endpoints: [...sentinels.sentinels] },
            readFrom: 'replicaPreferred',
          },
        },
        {
          name: 'single',
          weight: 1,
          options: { endpoints: [{ host: standalone.host, port: standalone.port }] },
        },
      ],
      healthCheck: HEALTH,
      failbackDelay: 600_000,
    });
    try {
      const member = group.members[0]!.client!;
      await group.client.set('fg:nodes', '1');
      const ports = () => [...member.nodes].map((node) => node.endpoint.port).sort();
      const oldPrimary = [...member.nodes].find(
        (node) => node.endpoint.port === member.memberRouter.endpoint.port,
      )!;
      expect(oldPrimary).toBeDefined();
      const promoted = await sentinels.failover({ untilSettled: false });
      await waitUntil(
        'the member on the promoted primary',
        async () => (member.memberRouter.endpoint.port === promoted.port ? true : 'not yet'),
        { timeoutMs: 30_000 },
      );
      // The old primary's node was closed by the switch: the member no longer holds it, nor any
      // other node its router closed.
      await waitUntil(
        'the closed nodes gone from the member',
        async () => {
          const closed = [...member.nodes].filter((node) => node.dedicatedClosed);
          if (closed.length > 0 || member.nodes.has(oldPrimary)) return `held: ${ports().join(',')}`;
          return oldPrimary.dedicatedClosed ? true : 'the old primary not closed';
        },
        { timeoutMs: 15_000 },
      );
    } finally {
      await group.close();
    }
  });
});
