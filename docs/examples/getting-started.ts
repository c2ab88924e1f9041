// docs/examples/getting-started.ts (getting-started.md): connect, typed helpers, raw commands, batches, transactions, errors.
import { RespireClient, RespireServerError } from '../../src/index.js';

export async function main(url: string) {
  // One client per process; it pipelines every command over one connection.
  await using redis = await RespireClient.connect({ url, commandTimeout: 2_000 });

  await redis.set('greeting', 'hello', { EX: 60 });
  const greeting = await redis.get('greeting'); // 'hello' (null when missing)

  await redis.hset('user:1', { name: 'Ada', visits: 1 });
  const user = await redis.hgetall('user:1'); // { name: 'Ada', visits: '1' }: values are strings

  // Any command, with the raw reply.
  const encoding = await redis.send(['OBJECT', 'ENCODING', 'greeting']); // 'embstr'

  // A batch goes out in one write; each entry succeeds or fails on its own.
  const batch = redis.batch();
  const visits = batch.hincrby('user:1', 'visits', 1);
  const ttl = batch.ttl('greeting');
  await batch.execute();

  // MULTI/EXEC: all or nothing, replies in order.
  const tx = redis.multi();
  tx.incr('counter');
  tx.incr('counter');
  const counters = await tx.exec(); // [1, 2] on an empty database

  // An error reply rejects with RespireServerError; `code` is its first word.
  const wrongType = await redis.lpush('greeting', 'x').catch((error: unknown) => error);
  const code = wrongType instanceof RespireServerError ? wrongType.code : undefined; // 'WRONGTYPE'

  return { greeting, user, encoding, visits: await visits, ttl: await ttl, counters, code };
}
