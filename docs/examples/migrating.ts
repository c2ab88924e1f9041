// docs/examples/migrating.ts (migrating.md): the same calls in ioredis, node-redis and Respire, and what each answers.
// The guide's "reply types" table is this function's result against a real server.
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { RespireClient } from '../../src/index.js';

export async function main(url: string) {
  const ioredis = new Redis(url, { lazyConnect: true });
  await ioredis.connect();
  const nodeRedis = createClient({ url });
  await nodeRedis.connect();
  // Respire: `url` as REDIS_URL; the client is ready once connect resolves.
  const respire = await RespireClient.connect({ url });
  try {
    await respire.flushdb();
    await respire.hset('h', { a: '1' });
    await respire.zadd('z', [
      { member: 'x', score: 1 },
      { member: 'y', score: 2 },
    ]);
    await respire.set('s', 'v');
    return {
      ioredis: {
        set: await ioredis.set('k', 'v'),
        missing: await ioredis.get('missing'),
        incr: await ioredis.incr('n'),
        expire: await ioredis.expire('k', 60),
        hgetall: await ioredis.hgetall('h'),
        zrangeWithScores: await ioredis.zrange('z', '0', '-1', 'WITHSCORES'),
        sismember: await ioredis.sismember('nope', 'x'),
      },
      nodeRedis: {
        set: await nodeRedis.set('k', 'v'),
        missing: await nodeRedis.get('missing'),
        incr: await nodeRedis.incr('n'),
        expire: await nodeRedis.expire('k', 60),
        hgetall: { ...(await nodeRedis.hGetAll('h')) },
        zrangeWithScores: await nodeRedis.zRangeWithScores('z', 0, -1),
        sismember: await nodeRedis.sIsMember('nope', 'x'),
      },
      respire: {
        set: await respire.set('k', 'v'),
        missing: await respire.get('missing'),
        incr: await respire.incr('n'),
        expire: await respire.expire('k', 60),
        hgetall: await respire.hgetall('h'),
        zrangeWithScores: await respire.zrange('z', 0, -1, { WITHSCORES: true }),
        sismember: await respire.sismember('nope', 'x'),
      },
    };
  } finally {
    await respire.close();
    await nodeRedis.close();
    await ioredis.quit();
  }
}
