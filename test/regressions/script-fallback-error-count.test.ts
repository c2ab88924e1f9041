// Regression: a script run that fell back from EVALSHA to EVAL counted the server's NOSCRIPT in
// `redis.client.errors`, an error no caller receives (the run resolves with the script's reply):
// every first run of a script on a server, and every run after a SCRIPT FLUSH or a failover,
// showed up as a client error. Only what the caller of `run` receives is counted now, once.
import { expect, it } from 'vitest';
import { RespireMetricGroups, RespireServerError } from '../../src/index.js';
import { RecordingMeter } from '../client/circuit-kit.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

function errorTypes(meter: RecordingMeter): unknown[] {
  return meter.of('redis.client.errors').map((m) => m.attributes?.['error.type']);
}

it.each([1, 3])(
  'counts no error for a fallback that succeeded (retry.maxAttempts %i)',
  async (maxAttempts) => {
    const meter = new RecordingMeter();
    const client = await clients.open({
      meter,
      metricGroups: [RespireMetricGroups.Commands],
      retry: { maxAttempts },
    });
    await client.scriptFlush();
    expect(await client.defineScript('return 1').run()).toBe(1);
    expect(await client.defineScript('return 2', { readOnly: true }).run()).toBe(2);
    expect(await client.withKeyPrefix('p:').defineScript('return KEYS[1]').run(['k'])).toBe('p:k');
    const session = await client.watch('script:count:w');
    expect(await session.defineScript('return 3').run()).toBe(3);
    await session.release();
    expect(errorTypes(meter)).toEqual([]);
  },
);

it('counts once what the caller of run receives, and a raw EVALSHA NOSCRIPT as ever', async () => {
  const meter = new RecordingMeter();
  const client = await clients.open({ meter, metricGroups: [RespireMetricGroups.Commands] });
  await client.scriptFlush();
  const failing = client.defineScript("return redis.error_reply('OWN failed')");
  expect((await outcome(failing.run())).error).toBeInstanceOf(RespireServerError);
  expect(errorTypes(meter)).toEqual(['RespireServerError']);
  // The script is cached now: EVALSHA's own error reply, counted once.
  expect((await outcome(failing.run())).error).toBeInstanceOf(RespireServerError);
  expect(errorTypes(meter)).toEqual(['RespireServerError', 'RespireServerError']);
  expect((await outcome(client.evalsha('0'.repeat(40)))).error).toMatchObject({ code: 'NOSCRIPT' });
  expect(errorTypes(meter)).toEqual(['RespireServerError', 'RespireServerError', 'NOSCRIPT']);
});
