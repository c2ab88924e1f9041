// Regression (issue 10 review): the unresponsive rule (connection.ts, README "Reply deadlines") looks
// at the oldest written command *that has a reply deadline*. It looked at the head only, and gave up
// when the head was exempt: one `timeout: 0` command in flight when the endpoint became a black hole
// kept the dead connection for good; every later command failed at its own deadline and nothing
// ever reconnected, even after the network healed onto a fresh connection's worth of time.
import { expect, it } from 'vitest';
import { RespireConnectionError, RespireTimeoutError } from '../../src/index.js';
import { outcome, outcomeWithin, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const clients = useTestClients(useRedisServer());

it('a timeout: 0 command at the head does not keep a black-holed connection alive', async () => {
  const { client, proxy } = await clients.proxied({ commandTimeout: 200, reconnect: () => 10 });
  // The test's own round trips get more than the 200 ms under test: a loaded machine may take longer.
  const id = await client.send(['CLIENT', 'ID'], { timeout: 5_000 });
  await proxy.setMode('blackhole');
  const before = proxy.bytesFromClient;
  const unbounded = client.get('exempt:head', { timeout: 0 });
  await proxy.waitForClientBytes(before + 1);
  const bounded = await outcome(client.get('exempt:behind'));
  expect(bounded.error).toBeInstanceOf(RespireTimeoutError);
  // Nothing read for commandTimeout past the overdue GET: the connection is replaced, and the
  // unbounded command fails with it (it may have run).
  const head = await outcomeWithin(unbounded, 2_000);
  expect(head).not.toBe('pending');
  expect((head as { error?: unknown }).error).toBeInstanceOf(RespireConnectionError);
  await proxy.setMode('pass');
  expect(await client.send(['CLIENT', 'ID'], { timeout: 5_000 })).not.toBe(id);
});
