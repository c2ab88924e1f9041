// Regression (issue 13, Cluster): a replacing importHash whose temporary key cannot be in the key's
// slot (a `}` without a hash tag, import-key.ts) is refused by the server's MOVED on its first
// transaction, nothing written, when that other slot is on another node. When it is on the same
// node, every chunk was written to the temporary key and the import failed only at the last
// transaction, whose RENAME met CROSSSLOT. The first transaction now names both keys (TOUCH), so
// the server refuses it at once there too: nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { RespireClient, RespireServerError } from '../../src/index.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
let redis: RespireClient;

beforeAll(async () => {
  // The temporary key's random suffix is `0` with this randomness.
  redis = await RespireClient.connect({
    endpoints: [cluster.endpoints[0]!],
    useCluster: true,
    random: { random: () => 0 },
  });
});
afterAll(async () => {
  await redis.close();
});

function* pairs(count: number): Generator<[string, string]> {
  for (let i = 0; i < count; i++) yield [`f${i}`, `v${i}`];
}

describe('Cluster: a replacing import whose temporary key is in another slot of the same node', () => {
  it('is refused by its first transaction, nothing written', async () => {
    let key = '';
    for (let i = 0; key === ''; i++) {
      const candidate = `q}${i}`;
      const temporary = `${candidate}:respire-import:0`;
      if (cluster.ownerOf(keySlot(candidate)).id === cluster.ownerOf(keySlot(temporary)).id) key = candidate;
    }
    let chunks = 0;
    const entries = function* () {
      for (const pair of pairs(6)) {
        chunks++;
        yield pair;
      }
    };
    const error = await redis
      .importHash(key, entries(), { chunkFields: 2, replace: true })
      .run()
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(RespireServerError);
    expect((error as RespireServerError).code).toBe('EXECABORT');
    expect(((error as RespireServerError).cause as RespireServerError).code).toBe('CROSSSLOT');
    // The first chunk and the one read ahead, no more.
    expect(chunks).toBeLessThanOrEqual(4);
    expect(await redis.exists(key)).toBe(0);
  });
});
