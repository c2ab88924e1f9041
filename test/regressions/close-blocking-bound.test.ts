// Regression (issue 10, defect 7): close() waited for every reply in flight, and a BLPOP ... 0 never
// replies, so close() never settled. A blocking command (or one with no reply deadline) still in
// flight when close()'s bound passes fails with a RespireConnectionError saying so, and close() ends.
import { expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { nextTurn, outcome, outcomeWithin, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

it('close() settles with BLPOP 0 in flight; the BLPOP fails with a clear error, nothing recorded', async () => {
  const client = await clients.open({ commandTimeout: 300, circuitBreaker: { minimumFailureCount: 1 } });
  const blocked = outcome(client.send(['BLPOP', 'close-bound:never', '0']));
  const timeless = outcome(client.send(['BLPOP', 'close-bound:never2', '0'], { timeout: 0 }));
  const admin = await clients.open();
  while (!/blocked_clients:2\r/.test(String(await admin.send(['INFO', 'clients'])))) await nextTurn();
  const closing = client.close();
  expect(await outcomeWithin(closing, 5_000)).toEqual({ value: undefined });
  for (const result of [await blocked, await timeless]) {
    expect(result.error).toBeInstanceOf(RespireConnectionError);
    expect((result.error as RespireConnectionError).message).toMatch(/close/);
    expect((result.error as RespireConnectionError).written).toBe(true);
  }
  expect(client.circuit!.snapshot().failures).toBe(0);
});
