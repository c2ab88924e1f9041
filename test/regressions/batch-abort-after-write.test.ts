// Regression (code review): a command aborted after its write rejected its promise and told its
// settle observer, but kept its FIFO slot as Written; when the connection was then lost, the slot's
// rejection told the observer (and the error sink) a second time. A batch counted that entry as
// settled twice: it finished while another entry was still pending and reported one index twice.
import { expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { nextTurn, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { proxied } = useTestClients(server);

it('a batch entry aborted after its write, then its connection lost, is reported once', async () => {
  const { proxy, client } = await proxied({ commandTimeout: 0, reconnect: false });
  await proxy.setMode('blackhole');
  const controller = new AbortController();
  const batch = client.batch();
  batch.get('regression:aborted', { signal: controller.signal });
  batch.get('regression:pending');
  const failures = batch.tryExecute();
  await nextTurn(); // both written, neither answered
  controller.abort('stop');
  await proxy.closeAllConnections();
  const reported = await failures;
  expect(reported.map((failure) => failure.index)).toEqual([0, 1]);
  expect(reported[0]!.error).toBe('stop');
  expect(reported[1]!.error).toBeInstanceOf(RespireConnectionError);
});
