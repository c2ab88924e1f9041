// docs/examples/cluster.ts (cluster.md): a Cluster client from seeds, multi-key commands across slots, hash tags for
// transactions, a SCAN over every primary, and the per-node circuits.

import { keySlot } from '../../src/cluster/index.js';
import { RespireClient, RespireServerError } from '../../src/index.js';

export async function main(seeds: string[]) {
  await using redis = await RespireClient.connect({
    endpoints: seeds, // any reachable node will do; the client learns the rest
    useCluster: true,
    readFrom: 'replicaPreferred',
    circuitBreaker: { openDuration: 2_000 }, // one circuit per node, primary or replica
  });

  // Keys in different slots: split per slot, joined in argument order (not atomic).
  await redis.mset({ 'user:1': 'Ada', 'user:2': 'Grace', 'user:3': 'Linus' });
  const names = await redis.mget(['user:1', 'user:2', 'user:3']);

  // A transaction needs one slot: a hash tag `{…}` puts the keys together.
  const tx = redis.multi();
  tx.set('{cart:7}:items', '3');
  tx.incrby('{cart:7}:total', 42);
  const committed = await tx.exec();
  const sameSlot = keySlot('{cart:7}:items') === keySlot('{cart:7}:total');

  // Any other command across slots is refused before anything is sent, as Redis would.
  const refused = await redis.send(['RENAME', 'user:1', 'user:9']).catch((error: unknown) => error);
  const code = refused instanceof RespireServerError ? refused.code : undefined; // 'CROSSSLOT'

  // SCAN walks every primary.
  const users: string[] = [];
  for await (const key of redis.scanIterator({ match: 'user:*' })) users.push(key);

  return { names, committed, sameSlot, code, users: users.sort() };
}
