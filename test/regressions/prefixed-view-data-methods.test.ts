// Regression (issue 13): getStream, setFromStream, importHash and durable were methods of the
// client only; a key-prefixed view's user expects `view.getStream('k')` to read `prefix + k`, as
// every other command of the view does, and an import's temporary key to stay under the prefix.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

async function text(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe('the data methods of a key-prefixed view', () => {
  it('getStream and setFromStream work on the prefixed key', async () => {
    const redis = await open();
    const app = redis.withKeyPrefix('app:');
    expect(await app.setFromStream('blob', Readable.from([Buffer.from('hello')]), { length: 5 })).toBe(true);
    expect(await redis.get('app:blob')).toBe('hello');
    expect(await redis.get('blob')).toBeNull();
    await redis.set('app:other', 'world');
    expect(await text(app.getStream('other'))).toBe('world');
    // Nested views and Buffer prefixes add up, as for commands.
    const nested = app.withKeyPrefix(Buffer.from('b:'));
    await redis.set('app:b:k', 'nested');
    expect(await text(nested.getStream('k'))).toBe('nested');
  });

  it('importHash writes the prefixed key, and its temporary key stays under the prefix in the slot', async () => {
    const redis = await open();
    const app = redis.withKeyPrefix('app:');
    const seen: string[] = [];
    const entries = async function* () {
      yield ['f1', 'v1'] as [string, string];
      yield ['f2', 'v2'] as [string, string];
      // Entries are read one chunk ahead: here the first transaction has run, so the temporary
      // key exists; look at its name.
      seen.push(...((await redis.send(['KEYS', '*respire-import*'])) as string[]));
      yield ['f3', 'v3'] as [string, string];
    };
    const job = app.importHash('users', entries(), { chunkFields: 1, replace: true });
    expect(await job.run()).toEqual({ fields: 3, transactions: 3 });
    expect(await redis.hgetall('app:users')).toEqual({ f1: 'v1', f2: 'v2', f3: 'v3' });
    expect(await redis.exists('users')).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.startsWith('app:')).toBe(true);
    expect(keySlot(seen[0]!)).toBe(keySlot('app:users'));
  });

  it('durable prefixes its writes', async () => {
    const redis = await open();
    const app = redis.withKeyPrefix('app:');
    const batch = app.durable({ replicas: 0, timeout: 100 });
    const wrote = batch.set('order', '1');
    const report = await batch.execute();
    expect(await wrote).toBe('OK');
    expect(report.writes[0]!.applied).toBe(true);
    expect(await redis.get('app:order')).toBe('1');
    expect(await redis.get('order')).toBeNull();
  });

  it('a view of withoutCache() has them too, and a prefixed view has withoutCache()', async () => {
    const redis = await open({ clientSideCache: { maxEntries: 10 } });
    await redis.set('app:k', 'v');
    expect(await text(redis.withoutCache().withKeyPrefix('app:').getStream('k'))).toBe('v');
    const fresh = redis.withKeyPrefix('app:').withoutCache();
    for (let i = 0; i < 3; i++) expect(await fresh.get('k')).toBe('v');
    expect(redis.cacheStats).toMatchObject({ hits: 0, entries: 0 });
    expect(await text(fresh.getStream('k'))).toBe('v');
  });
});
