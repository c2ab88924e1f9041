// The public types of the typed helpers (issue 17, STYLE.md "Dev tooling"): each reply type and
// each overload that picks a reply type from its arguments, for string replies and for Buffer
// replies (`RedisCommands<Buffer>`, as with `returnBuffers: true`). A `.test-d.ts` file: the type
// checker runs it (`npx tsc -p tsconfig.json` covers test/, and CI runs that), not vitest, since
// its values come from a declared client that exists only for the types.
import { describe, expectTypeOf, it } from 'vitest';
import type {
  Batch,
  HashScanPage,
  KeyPrefixView,
  KeyScanPage,
  ListMultiPop,
  ListPop,
  RedisCommands,
  RespireClient,
  RespireEndpointInput,
  RespireOptions,
  ScoredMember,
  ServerTime,
  SortedSetPop,
  StreamEntry,
  StreamRead,
  Transaction,
  WatchSession,
} from '../../src/index.js';

declare const redis: RespireClient;
declare const raw: RedisCommands<Buffer>;

/** The type a helper's promise resolves to. */
type Reply<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

describe('string helpers', () => {
  it('GET answers the value or null; SET answers OK, or the old value with GET', () => {
    expectTypeOf(redis.get).returns.resolves.toEqualTypeOf<string | null>();
    expectTypeOf(redis.set('k', 'v')).resolves.toEqualTypeOf<'OK' | null>();
    expectTypeOf(redis.set('k', 'v', { NX: true })).resolves.toEqualTypeOf<'OK' | null>();
    expectTypeOf(redis.set('k', 'v', { GET: true })).resolves.toEqualTypeOf<string | null>();
    expectTypeOf(raw.set('k', 'v', { GET: true })).resolves.toEqualTypeOf<Buffer | null>();
    expectTypeOf(raw.get('k')).resolves.toEqualTypeOf<Buffer | null>();
  });

  it('counters may exceed the safe integers; MGET keeps its nulls', () => {
    expectTypeOf(redis.incr('n')).resolves.toEqualTypeOf<number | bigint>();
    expectTypeOf(redis.incrbyfloat('n', 0.5)).resolves.toEqualTypeOf<number>();
    expectTypeOf(redis.mget(['a', 'b'])).resolves.toEqualTypeOf<(string | null)[]>();
    expectTypeOf(raw.mget(['a'])).resolves.toEqualTypeOf<(Buffer | null)[]>();
    expectTypeOf(redis.mset({ a: '1' })).resolves.toEqualTypeOf<'OK'>();
  });

  it('arguments are strings, Buffers or numbers, never objects', () => {
    expectTypeOf(redis.set).toBeCallableWith('k', Buffer.from('v'));
    expectTypeOf(redis.set).toBeCallableWith('k', 42);
    // @ts-expect-error a value is no object
    void redis.set('k', { a: 1 });
  });
});

describe('overloads that choose the reply from the arguments', () => {
  it('LPOP and SPOP: one element or null without a count, an array with one', () => {
    expectTypeOf(redis.lpop('l')).resolves.toEqualTypeOf<string | null>();
    expectTypeOf(redis.lpop('l', 2)).resolves.toEqualTypeOf<string[]>();
    expectTypeOf(redis.spop('s')).resolves.toEqualTypeOf<string | null>();
    expectTypeOf(redis.spop('s', 3)).resolves.toEqualTypeOf<string[]>();
    expectTypeOf(raw.rpop('l', 2)).resolves.toEqualTypeOf<Buffer[]>();
  });

  it('LPOS: a position or null, or every position with COUNT', () => {
    expectTypeOf(redis.lpos('l', 'x')).resolves.toEqualTypeOf<number | null>();
    expectTypeOf(redis.lpos('l', 'x', { COUNT: 0 })).resolves.toEqualTypeOf<number[]>();
  });

  it('ZRANGE and ZRANGEBYSCORE: members, or { member, score } with WITHSCORES', () => {
    expectTypeOf(redis.zrange('z', 0, -1)).resolves.toEqualTypeOf<string[]>();
    expectTypeOf(redis.zrange('z', 0, -1, { WITHSCORES: true })).resolves.toEqualTypeOf<
      ScoredMember<string>[]
    >();
    expectTypeOf(redis.zrangebyscore('z', '-inf', '+inf', { WITHSCORES: true })).resolves.toEqualTypeOf<
      ScoredMember<string>[]
    >();
    expectTypeOf(raw.zrange('z', 0, -1, { WITHSCORES: true })).resolves.toEqualTypeOf<
      ScoredMember<Buffer>[]
    >();
  });

  it('ZPOPMIN: one member or null without a count, an array with one', () => {
    expectTypeOf(redis.zpopmin('z')).resolves.toEqualTypeOf<ScoredMember<string> | null>();
    expectTypeOf(redis.zpopmin('z', 2)).resolves.toEqualTypeOf<ScoredMember<string>[]>();
  });

  it('PING: with a message or only options', () => {
    expectTypeOf(redis.ping()).resolves.toEqualTypeOf<string>();
    expectTypeOf(redis.ping({ timeout: 100 })).resolves.toEqualTypeOf<string>();
    expectTypeOf(redis.ping('hello')).resolves.toEqualTypeOf<string>();
  });
});

describe('structured replies', () => {
  it('hashes, sets and keys', () => {
    expectTypeOf(redis.hgetall('h')).resolves.toEqualTypeOf<Record<string, string>>();
    expectTypeOf(raw.hgetall('h')).resolves.toEqualTypeOf<Record<string, Buffer>>();
    expectTypeOf(redis.smembers('s')).resolves.toEqualTypeOf<string[]>();
    expectTypeOf(redis.sismember('s', 'm')).resolves.toEqualTypeOf<boolean>();
    expectTypeOf(redis.expire('k', 10)).resolves.toEqualTypeOf<boolean>();
    expectTypeOf(redis.del(['a', 'b'])).resolves.toEqualTypeOf<number>();
  });

  it('blocking pops name the key they popped from', () => {
    expectTypeOf(redis.blpop(['a', 'b'], 1)).resolves.toEqualTypeOf<ListPop<string> | null>();
    expectTypeOf(redis.blmpop(1, ['a'], 'LEFT')).resolves.toEqualTypeOf<ListMultiPop<string> | null>();
    expectTypeOf(redis.bzpopmax(['z'], 1)).resolves.toEqualTypeOf<SortedSetPop<string> | null>();
    expectTypeOf<SortedSetPop<string>>().toMatchTypeOf<ScoredMember<string> & { key: string }>();
  });

  it('streams', () => {
    expectTypeOf(redis.xadd('s', '*', { f: 'v' })).resolves.toEqualTypeOf<string | null>();
    expectTypeOf(redis.xrange('s', '-', '+')).resolves.toEqualTypeOf<StreamEntry<string>[]>();
    expectTypeOf(redis.xread({ key: 's', id: '0' })).resolves.toEqualTypeOf<StreamRead<string>[] | null>();
    expectTypeOf<StreamEntry<string>['fields']>().toEqualTypeOf<Record<string, string>>();
  });

  it('SCAN pages and iterators, TIME', () => {
    expectTypeOf(redis.scan(0)).resolves.toEqualTypeOf<KeyScanPage<string>>();
    expectTypeOf(redis.hscan('h', '0')).resolves.toEqualTypeOf<HashScanPage<string>>();
    expectTypeOf(redis.scanIterator()).toEqualTypeOf<AsyncGenerator<string, void, undefined>>();
    expectTypeOf(raw.zscanIterator('z')).toEqualTypeOf<AsyncGenerator<[Buffer, number], void, undefined>>();
    expectTypeOf(redis.time()).resolves.toEqualTypeOf<ServerTime>();
  });

  it('send answers any RESP value', () => {
    expectTypeOf<Reply<typeof redis.send>>().toEqualTypeOf<import('../../src/index.js').RespValue>();
  });
});

describe('views, batches and transactions have the same helpers', () => {
  it('every one of them is RedisCommands', () => {
    expectTypeOf<RespireClient>().toMatchTypeOf<RedisCommands>();
    expectTypeOf<KeyPrefixView>().toMatchTypeOf<RedisCommands>();
    expectTypeOf<Batch>().toMatchTypeOf<RedisCommands>();
    expectTypeOf<Transaction>().toMatchTypeOf<RedisCommands>();
    expectTypeOf<WatchSession>().toMatchTypeOf<RedisCommands>();
    expectTypeOf(redis.withKeyPrefix('app:').get('k')).resolves.toEqualTypeOf<string | null>();
    expectTypeOf(redis.batch().zpopmin('z', 2)).resolves.toEqualTypeOf<ScoredMember<string>[]>();
  });
});

describe('options', () => {
  it('endpoints take host:port, objects, socket paths and URLs; url is a string', () => {
    expectTypeOf<'localhost:6379'>().toMatchTypeOf<RespireEndpointInput>();
    expectTypeOf<{ host: 'h'; port: 1 }>().toMatchTypeOf<RespireEndpointInput>();
    expectTypeOf<{ path: '/run/redis.sock' }>().toMatchTypeOf<RespireEndpointInput>();
    expectTypeOf<RespireOptions['url']>().toEqualTypeOf<string | undefined>();
    // @ts-expect-error a port alone is no endpoint
    const noHost: RespireEndpointInput = { port: 6379 };
    void noHost;
  });
});
