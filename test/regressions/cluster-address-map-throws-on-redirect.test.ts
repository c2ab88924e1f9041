// Issue 11 "Topology" (`cluster.addressMap` rewrites every announced address) meeting a redirect:
// the address a MOVED names is mapped while its reply is being handled. An addressMap that throws
// (or returns no endpoint) for it threw out of the reply handler, into the connection's reply
// loop: the caller's command never settled, and the error escaped as an uncaught exception (bad
// input must never crash the process). Now the command fails with the RespireConfigurationError
// saying what addressMap did, and the client goes on serving other commands.
import { describe, expect, it } from 'vitest';
import { RespireClient, RespireConfigurationError } from '../../src/index.js';
import { outcome, tagOn } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();

describe('an addressMap that throws for a MOVED target', () => {
  it('fails that command with RespireConfigurationError; the client keeps working', async () => {
    let broken = false;
    const redis = await RespireClient.connect({
      endpoints: [cluster.endpoints[0]!],
      useCluster: true,
      cluster: {
        refreshInterval: 0,
        addressMap: (endpoint) => {
          if (broken) throw new Error('no route to that node');
          return endpoint;
        },
      },
    });
    try {
      const [source, target, other] = cluster.primaries as [
        (typeof cluster.primaries)[0],
        (typeof cluster.primaries)[0],
        (typeof cluster.primaries)[0],
      ];
      const { tag, slot } = tagOn(cluster, source, 'map');
      const key = `${tag}:k`;
      await redis.set(key, 'v');
      const { tag: otherTag } = tagOn(cluster, other, 'map-other');
      await redis.set(`${otherTag}:k`, 'w');
      // The slot moves behind the client's back: its next GET there is answered MOVED.
      await cluster.migrateSlot(slot, target);
      broken = true;
      const error = await outcome(redis.get(key));
      expect(error).toBeInstanceOf(RespireConfigurationError);
      expect((error as Error).message).toMatch(/addressMap threw/);
      expect(await redis.get(`${otherTag}:k`)).toBe('w');
    } finally {
      await redis.close();
    }
  });
});
