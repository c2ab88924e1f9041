// Regression (issue 19 #12): every transaction added its own abort listener to the AbortSignal of
// `exec({ signal })`, so twelve transactions sharing one signal put twelve listeners on it (and
// Node warned MaxListenersExceededWarning past ten). Transactions now join the client's one
// listener per signal (transport/signal-watch.ts), and aborting still reaches each of them.
import { getEventListeners } from 'node:events';
import { expect, it } from 'vitest';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

const TRANSACTIONS = 12;

it('transactions sharing a signal put one abort listener on it, and all hear the abort', async () => {
  const client = await clients.open();
  const controller = new AbortController();
  const { signal } = controller;
  // Issued in one tick: none is written before the abort below, so each must fail unsent.
  const runs = Array.from({ length: TRANSACTIONS }, (_, i) => {
    const tx = client.multi();
    tx.set(`tx:signal:${i}`, 'x');
    return outcome(tx.exec({ signal }));
  });
  expect(getEventListeners(signal, 'abort')).toHaveLength(1);
  controller.abort(new Error('stop'));
  for (const result of await Promise.all(runs)) expect(result.error).toBe(signal.reason);
  expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  expect(await client.exists(Array.from({ length: TRANSACTIONS }, (_, i) => `tx:signal:${i}`))).toBe(0);
});

it('a finished transaction takes its listener off the signal', async () => {
  const client = await clients.open();
  const { signal } = new AbortController();
  const tx = client.multi();
  tx.incr('tx:signal:done');
  await tx.exec({ signal });
  expect(getEventListeners(signal, 'abort')).toHaveLength(0);
});
