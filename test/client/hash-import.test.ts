// `importHash` (issue 13 "Hash imports") against a real server: chunks of HSET in transactions on
// one dedicated connection, atomic replacement (a reader sees the old hash or the complete new one),
// and an import that fails or is abandoned leaving the key as it was and no temporary key behind.
import { describe, expect, it } from 'vitest';
import { temporaryKey } from '../../src/client/imports/import-key.js';
import { keySlot } from '../../src/cluster/key-slot.js';
import { type RespireClient, RespireConfigurationError, RespireError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { outcome, useTestClients } from './support.js';
import { portsOf, recordWrites } from './write-spy.js';

const server = useRedisServer();
const { open } = useTestClients(server);

function* fields(count: number, tag: string): Generator<[string, string]> {
  for (let i = 0; i < count; i++) yield [`f${i}`, `${tag}${i}`];
}

async function leftovers(redis: RespireClient): Promise<string[]> {
  return (await redis.send(['KEYS', '*respire-import*'])) as string[];
}

describe('importHash', () => {
  it('writes every field in chunks, each a transaction on the same dedicated connection', async () => {
    const redis = await open();
    const writes = recordWrites(() => server.port);
    const job = redis.importHash('import:plain', fields(2_500, 'v'), { chunkFields: 1_000 });
    expect(await job.run()).toEqual({ fields: 2_500, transactions: 3 });
    const ports = portsOf(writes, 'MULTI');
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(1);
    expect(await redis.hlen('import:plain')).toBe(2_500);
    expect(await redis.hget('import:plain', 'f2499')).toBe('v2499');
    expect(job.fieldsWritten).toBe(2_500);
    await expect(job.run()).rejects.toThrow(/has ended/);
  });

  it('replace: readers see the old hash until the last transaction renames the complete new one', async () => {
    const redis = await open();
    const reader = await open();
    await redis.hset('import:swap', [...fields(10, 'old')]);
    await redis.hset('import:swap', 'only-old', 'x');
    await redis.pexpire('import:swap', 600_000);
    const seen: number[] = [];
    async function* watched(): AsyncGenerator<[string, string]> {
      for (const [index, entry] of [...fields(3_000, 'new')].entries()) {
        // Between chunks: the key still holds the whole old hash.
        if (index % 1_000 === 0 && index > 0) {
          seen.push(await reader.hlen('import:swap'));
          expect(await reader.hget('import:swap', 'f0')).toBe('old0');
        }
        yield entry;
      }
    }
    const job = redis.importHash('import:swap', watched(), { chunkFields: 1_000, replace: true });
    expect(await job.run()).toEqual({ fields: 3_000, transactions: 3 });
    expect(seen).toEqual([11, 11]);
    expect(await redis.hlen('import:swap')).toBe(3_000);
    expect(await redis.hget('import:swap', 'only-old')).toBeNull();
    expect(await redis.hget('import:swap', 'f2999')).toBe('new2999');
    expect(await redis.pttl('import:swap')).toBe(-1);
    expect(await leftovers(redis)).toEqual([]);
  });

  it('replace with no entries deletes the key; no entries without replace sends nothing', async () => {
    const redis = await open();
    await redis.hset('import:empty', 'a', '1');
    expect(await redis.importHash('import:empty', [], { chunkFields: 10 }).run()).toEqual({
      fields: 0,
      transactions: 0,
    });
    expect(await redis.hlen('import:empty')).toBe(1);
    await redis.importHash('import:empty', [], { chunkFields: 10, replace: true }).run();
    expect(await redis.exists('import:empty')).toBe(0);
  });

  it('a failing source ends the import: the key is unchanged and the temporary key deleted', async () => {
    const redis = await open();
    await redis.hset('import:fail', 'keep', 'me');
    async function* failing(): AsyncGenerator<[string, string]> {
      yield* fields(25, 'n');
      throw new Error('feed broke');
    }
    const job = redis.importHash('import:fail', failing(), { chunkFields: 10, replace: true });
    const failed = await outcome(job.run());
    expect(failed.error).toBeInstanceOf(RespireError);
    expect((failed.error as Error).message).toMatch(/reading the entries failed after 25 fields/);
    expect((failed.error as Error).cause).toEqual(new Error('feed broke'));
    expect(job.resumable).toBe(false);
    expect(await redis.hgetall('import:fail')).toEqual({ keep: 'me' });
    await expect.poll(() => leftovers(redis)).toEqual([]);
  });

  it('an entry that is not a [field, value] pair fails the import with a TypeError', async () => {
    const redis = await open();
    const job = redis.importHash('import:bad', [['a', '1'], ['b'] as never], { chunkFields: 10 });
    const failed = await outcome(job.run());
    expect(failed.error).toBeInstanceOf(TypeError);
    expect(await redis.exists('import:bad')).toBe(0);
  });

  it('an aborted signal stops the import before its next transaction', async () => {
    const redis = await open();
    const controller = new AbortController();
    async function* entries(): AsyncGenerator<[string, string]> {
      for (const [index, entry] of [...fields(30, 'a')].entries()) {
        if (index === 20) controller.abort(new Error('enough'));
        yield entry;
      }
    }
    const job = redis.importHash('import:abort', entries(), {
      chunkFields: 10,
      replace: true,
      signal: controller.signal,
    });
    expect((await outcome(job.run())).error).toEqual(new Error('enough'));
    expect(await redis.exists('import:abort')).toBe(0);
    await expect.poll(() => leftovers(redis)).toEqual([]);
  });

  it('rejects an invalid chunk size with a configuration error', async () => {
    const redis = await open();
    expect(() => redis.importHash('k', [], { chunkFields: 0 })).toThrow(RespireConfigurationError);
  });
});

describe('the temporary key', () => {
  it('lives in the key slot, with or without a hash tag', () => {
    const random = { random: () => 0.5 };
    for (const key of ['users', '{user:1}:profile', 'a{b', Buffer.from([0xff, 0x00, 0x41])]) {
      const temporary = temporaryKey(key, random);
      expect(keySlot(temporary as string | Buffer)).toBe(keySlot(key));
      expect(Buffer.from(temporary as string | Buffer).includes('respire-import')).toBe(true);
    }
  });
});
