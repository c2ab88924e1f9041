// Regression: a WATCH session's caller who got a refused command (refused-commands.ts) or called
// a session that had ended received an error that `redis.client.errors` never counted, while the
// same refusal from the client, a view or a batch was counted (README: the metric sees every
// command a caller issues, a WATCH session's included).
import { expect, it } from 'vitest';
import { RespireMetricGroups, RespireUnsupportedCommandError } from '../../src/index.js';
import { RecordingMeter } from '../client/circuit-kit.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

it('counts a refused or late session command once', async () => {
  const meter = new RecordingMeter();
  const client = await clients.open({ meter, metricGroups: [RespireMetricGroups.Commands] });
  const session = await client.watch('refused:session');
  expect((await outcome(session.send(['SELECT', '1']))).error).toBeInstanceOf(RespireUnsupportedCommandError);
  await session.release();
  expect((await outcome(session.get('refused:session'))).error).toBeInstanceOf(TypeError);
  expect(meter.of('redis.client.errors').map((m) => m.attributes?.['error.type'])).toEqual([
    'RespireUnsupportedCommandError',
    'TypeError',
  ]);
});
