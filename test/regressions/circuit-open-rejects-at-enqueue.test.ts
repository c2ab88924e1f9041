// Regression (issue 11, the cluster blip): a command to an endpoint whose circuit is open, with its
// connection up, was queued and rejected only at the channel's flush, a microtask later, behind
// every other microtask of the tick (other nodes' flushes and replies): the sick node's callers
// waited 4–5 ms at p99 for a rejection that was decided before the call returned. While the circuit
// is open and within its open duration, the command is rejected as it is queued (seed 000
// "Rejections": nothing is sent), so the rejection is observable before any microtask runs.
import { expect, it } from 'vitest';
import { RespireCircuitOpenError, RespireMetricGroups } from '../../src/index.js';
import { RecordingMeter, tripByRefusal, untilProbeDue, useCircuitRigs } from '../client/circuit-kit.js';
import { outcome } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const rigs = useCircuitRigs(useRedisServer());

/** A rig whose circuit `tripByRefusal` opened, with its connection up, and its rejection count. */
async function tripped(circuitBreaker: { openDuration: number; halfOpenProbeCount?: number }) {
  const meter = new RecordingMeter();
  const rig = await rigs.open({
    circuitBreaker,
    commandTimeout: 5_000,
    meter,
    metricGroups: [RespireMetricGroups.Resiliency],
  });
  await tripByRefusal(rig);
  const rejections = () => meter.of('respire.circuit.rejections').length;
  return { ...rig, rejections };
}

it('a command to an open endpoint with a live connection is rejected before any microtask runs', async () => {
  const { client, proxy, circuit, rejections } = await tripped({ openDuration: 60_000 });
  expect(circuit.state).toBe('open');
  // tripByRefusal left the shared connection up: the command finds a connection to queue on.
  const before = rejections();
  const bytes = proxy.bytesFromClient;
  const get = outcome(client.get('open:enqueue'));
  // Synchronously, in the call itself: the circuit said no.
  expect(rejections()).toBe(before + 1);
  const result = await get;
  expect(result.error).toBeInstanceOf(RespireCircuitOpenError);
  expect((result.error as RespireCircuitOpenError).retryAfter).toBeGreaterThan(50_000);
  expect(rejections()).toBe(before + 1);
  expect(proxy.bytesFromClient).toBe(bytes);
  expect(circuit.state).toBe('open');
});

it('a transaction to an open endpoint is rejected as it is queued, its entries unsent', async () => {
  const { client, proxy, circuit, rejections } = await tripped({ openDuration: 60_000 });
  expect(circuit.state).toBe('open');
  const before = rejections();
  const bytes = proxy.bytesFromClient;
  const tx = client.multi();
  tx.set('open:tx', '1');
  tx.get('open:tx');
  const result = await outcome(tx.exec());
  expect(result.error).toBeInstanceOf(RespireCircuitOpenError);
  // One rejection for the transaction (MULTI's admission), nothing written.
  expect(rejections()).toBe(before + 1);
  expect(proxy.bytesFromClient).toBe(bytes);
  expect(circuit.state).toBe('open');
});

it('a command to a half-open endpoint whose probe slots are taken is rejected as it is queued', async () => {
  const { client, proxy, circuit, rejections } = await tripped({ openDuration: 300, halfOpenProbeCount: 1 });
  await untilProbeDue(circuit);
  await proxy.setMode('blackhole');
  const probe = outcome(client.get('half-open:probe')); // admitted at the flush, then unanswered
  await proxy.waitForClientBytes(proxy.bytesFromClient + 1);
  expect(circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1 });
  const before = rejections();
  const get = outcome(client.get('half-open:more'));
  // Synchronously, in the call itself: no probe slot is free.
  expect(rejections()).toBe(before + 1);
  const result = await get;
  expect(result.error).toBeInstanceOf(RespireCircuitOpenError);
  expect((result.error as RespireCircuitOpenError).retryAfter).toBeNull();
  await proxy.setMode('pass');
  expect((await probe).value).toBeNull();
  expect(circuit.state).toBe('closed');
});
