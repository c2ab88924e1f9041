// Regression (code review): respire-client.ts runDedicated gives the dedicated connection back when the command's
// promise settles. A fire-and-forget command settles at its write (connection.ts track), so a
// fire-and-forget BLPOP returns its connection to the pool while the server is still blocked on
// it, and the next blocking command is queued behind it on that connection.
import { expect, it } from 'vitest';
import { nextTurn, outcomeWithin, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

it('a blocking command does not queue behind a fire-and-forget BLPOP still blocked', async () => {
  const client = await clients.open();
  await client.send(['DEL', 'review:ff:never', 'review:ff:ready']);
  await client.send(['RPUSH', 'review:ff:ready', 'x']);
  expect(await client.send(['BLPOP', 'review:ff:never', '0'], { fireAndForget: true })).toBeUndefined();
  await nextTurn(); // any later moment: the pool has taken the connection back by then
  const next = client.send(['BLPOP', 'review:ff:ready', '1']);
  // Longer than BLPOP's own 1 s timeout: still pending then, it queued behind the blocked one.
  expect(await outcomeWithin(next, 1_500)).toEqual({ value: ['review:ff:ready', 'x'] });
});
