// Regression (issue 13, Cluster): getStream, setFromStream, importHash and durable ran on a
// dedicated connection of the node the client's slot map named, and a MOVED or ASK reached the
// caller as an error although nothing had run. Each now follows a redirect while nothing it sent
// has run (MOVED: to the new owner, the map patched; ASK: ASKING then the command on a connection
// of the target), and fails with a clear error when a later step meets one.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient, RespireServerError } from '../../src/index.js';
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
});
