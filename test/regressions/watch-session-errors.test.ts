// Regression (issue 10 #8): `redis.client.errors` counted what callers of the client, its batches
// and its transactions received, but nothing a WATCH session's caller received: not a failed
// `watch()`, not a session command's error, not its transaction's `exec()` rejection. Each such
// error is now counted exactly once, as for the client's own commands and transactions.
import { expect, it } from 'vitest';
import { RespireMetricGroups, RespireServerError, RespireTimeoutError } from '../../src/index.js';
import { RecordingMeter } from '../client/circuit-kit.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

function errorTypes(meter: RecordingMeter): unknown[] {
  return meter.of('redis.client.errors').map((m) => m.attributes?.['error.type']);
}

it('counts each error a WATCH session caller receives once', async () => {
  const meter = new RecordingMeter();
  const client = await clients.open({ meter, metricGroups: [RespireMetricGroups.Commands] });
  await client.set('errors:watch:text', 'a');

  const session = await client.watch('errors:watch:text');
  const command = await outcome(session.lpush('errors:watch:text', 'x'));
  expect(command.error).toBeInstanceOf(RespireServerError);
  expect(errorTypes(meter)).toEqual(['WRONGTYPE']);

  const tx = session.multi();
  tx.send(['SET', 'errors:watch:text']); // wrong number of arguments: EXECABORT
  expect((await outcome(tx.exec())).error).toMatchObject({ code: 'EXECABORT' });
  // exec() rejected once; the entry's own queue-time error is part of it, as in client.multi().
  expect(errorTypes(meter)).toEqual(['WRONGTYPE', 'EXECABORT']);

  // A transaction entry that fails inside EXEC is a value of exec()'s result, as for the client.
  const second = await client.watch('errors:watch:text');
  const tx2 = second.multi();
  tx2.lpush('errors:watch:text', 'x');
  expect(await tx2.exec()).toEqual([expect.any(RespireServerError)]);
  expect(errorTypes(meter)).toEqual(['WRONGTYPE', 'EXECABORT']);
});

it('counts a failed watch() once', async () => {
  const meter = new RecordingMeter();
  const client = await clients.open({
    meter,
    metricGroups: [RespireMetricGroups.Commands],
    maxDedicatedConnections: 1,
    acquireTimeout: 50,
  });
  const held = await client.watch('errors:watch:held');
  const refused = await outcome(client.watch('errors:watch:other'));
  expect(refused.error).toBeInstanceOf(RespireTimeoutError);
  expect(errorTypes(meter)).toEqual(['RespireTimeoutError']);
  await held.release();
});
