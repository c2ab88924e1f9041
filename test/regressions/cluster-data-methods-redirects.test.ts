// Regression (issue 13, Cluster): getStream, setFromStream, importHash and durable ran on a
// dedicated connection of the node the client's slot map named, and a MOVED or ASK reached the
// caller as an error although nothing had run. Each now follows a redirect while nothing it sent
// has run (MOVED: to the new owner, the map patched; ASK: ASKING then the command on a connection
// of the target), and fails with a clear error when a later step meets one.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient, RespireError, RespireServerError } from '../../src/index.js';
import { tagOn } from '../cluster/cluster-support.js';
import { useRedisCluster } from '../kit/vitest-redis.js';

const cluster = useRedisCluster();
let redis: RespireClient;

beforeAll(async () => {
  redis = await RespireClient.connect({ endpoints: [cluster.endpoints[0]!], useCluster: true });
});
afterAll(async () => {
  await redis.close();
});

async function text(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

/** A tag whose slot the client believes is on the first primary, then moved (keys and all) to the second. */
async function movedTag(salt: string): Promise<string> {
  const [source, target] = cluster.primaries;
  const { tag, slot } = tagOn(cluster, source!, salt);
  await redis.get(`${tag}:warm`); // the client knows the slot's owner
  await cluster.migrateSlot(slot, target!);
  return tag;
}

/**
 * A tag whose slot is migrating from the first primary to the second, with `keys` set on the source
 * and then moved to the target: from there the source answers ASK for them.
 */
async function askingTag(
  salt: string,
  keys: Record<string, string>,
): Promise<{ tag: string; finish(): Promise<void> }> {
  const [source, target] = cluster.primaries;
  const { tag, slot } = tagOn(cluster, source!, salt);
  await redis.get(`${tag}:warm`);
  for (const [key, value] of Object.entries(keys))
    await cluster.command(source!, ['SET', `${tag}:${key}`, value]);
  const migration = await cluster.beginMigration(slot, target!);
  await cluster.moveKeys(migration);
  return { tag, finish: () => cluster.finishMigration(migration) };
}

describe('Cluster data methods and redirects', () => {
  it('getStream follows MOVED to the new owner', async () => {
    const tag = await movedTag('stream-moved');
    await cluster.command(cluster.primaries[1]!, ['SET', `${tag}:k`, 'moved value']);
    expect(await text(redis.getStream(`${tag}:k`))).toBe('moved value');
  });

  it('getStream follows ASK with ASKING on a connection of the target', async () => {
    const { tag, finish } = await askingTag('stream-ask', { k: 'asked value' });
    const stream = redis.getStream(`${tag}:k`);
    expect(await stream.valueLength).toBe(11);
    expect(await text(stream)).toBe('asked value');
    await finish();
  });

  it('importHash follows MOVED on its first transaction', async () => {
    const tag = await movedTag('import-moved');
    const job = redis.importHash(`${tag}:h`, pairs(5), { chunkFields: 2, replace: true });
    expect(await job.run()).toEqual({ fields: 5, transactions: 3 });
    expect(await cluster.command(cluster.primaries[1]!, ['HLEN', `${tag}:h`])).toBe(5);
  });

  it('importHash follows ASK on its first transaction, with ASKING before every MULTI', async () => {
    const { tag, finish } = await askingTag('import-ask', {});
    const job = redis.importHash(`${tag}:h`, pairs(5), { chunkFields: 2 });
    expect(await job.run()).toEqual({ fields: 5, transactions: 3 });
    await finish();
    expect(await redis.hlen(`${tag}:h`)).toBe(5);
  });

  it('importHash fails saying so when the slot moves after a transaction ran', async () => {
    const [source, target] = cluster.primaries;
    const { tag, slot } = tagOn(cluster, source!, 'import-later');
    await redis.get(`${tag}:warm`);
    const entries = async function* () {
      yield ['f0', 'v0'] as [string, string];
      yield ['f1', 'v1'] as [string, string];
      // Read one chunk ahead: the first transaction has run on the source.
      await cluster.migrateSlot(slot, target!);
      yield ['f2', 'v2'] as [string, string];
    };
    const job = redis.importHash(`${tag}:h`, entries(), { chunkFields: 1 });
    const error = await job.run().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(RespireError);
    expect((error as Error).message).toMatch(
      /MOVED .* after 1 transactions had run .*the slot moved during the import/,
    );
    expect(job.resumable).toBe(false);
    // The transaction that ran moved with the slot; the one redirected ran nowhere.
    expect(await redis.hgetall(`${tag}:h`)).toEqual({ f0: 'v0' });
  });
});

function* pairs(count: number): Generator<[string, string]> {
  for (let i = 0; i < count; i++) yield [`f${i}`, `v${i}`];
}
