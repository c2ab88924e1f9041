// The circuit with retries, blocking commands and the client's telemetry (issue 5, seed 000
// "Retries", "Circuit metrics"), against a real redis-server behind the fault proxy.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Instruments } from '../../src/client/metrics.js';
import { RespireCircuitOpenError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import {
  expectRejected,
  nextTransition,
  outcome,
  RecordingMeter,
  recordTransitions,
  tripByRefusal,
  tripUntilProbeDue,
  useCircuitRigs,
} from './circuit-kit.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);

describe('retries', () => {
  it('admits every attempt right before its write and records each outcome on its own', async () => {
    const meter = new RecordingMeter();
    const { client, proxy, circuit } = await rigs.open({
      meter,
      retry: { maxAttempts: 3 },
      circuitBreaker: { minimumFailureCount: 5 },
    });
    await client.set('circuit:retry', 'v');
    // The first reply byte cuts the connection: the GET was written, and as a read it is retried.
    await proxy.setMode('closeAfterReplyBytes', 0);
    expect(await client.get('circuit:retry')).toBe('v');
    expect(circuit.snapshot()).toMatchObject({ state: 'closed', failures: 1, total: 3 });
    expect(meter.total(Instruments.retries.name)).toBe(1);
  });

  it('never retries a rejection: a failure that trips the circuit ends the retries', async () => {
    const meter = new RecordingMeter();
    const rig = await rigs.open({
      meter,
      retry: { maxAttempts: 3 },
      circuitBreaker: { minimumFailureCount: 1 },
    });
    const { client, proxy } = rig;
    await proxy.setMode('closeAfterReplyBytes', 0);
    const first = await outcome(client.get('circuit:retry'));
    expectRejected(first.error, rig);
    expect(meter.total(Instruments.retries.name)).toBe(1);
    expect(meter.total(Instruments.rejections.name)).toBe(1);
    const second = await outcome(client.get('circuit:retry'));
    expect(second.error).toBeInstanceOf(RespireCircuitOpenError);
    expect(meter.total(Instruments.retries.name)).toBe(1);
    expect(meter.total(Instruments.rejections.name)).toBe(2);
    expect(meter.total(Instruments.errors.name)).toBe(2);
  });
});

describe('blocking commands', () => {
  it('are admitted like any command and exempt from the response timeout', async () => {
    const { client, circuit } = await rigs.open({ commandTimeout: 50 });
    const started = performance.now();
    expect(await client.blpop('circuit:blocking:empty', 0.2)).toBeNull();
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(circuit.snapshot()).toMatchObject({ failures: 0, total: 1, admissionsInFlight: 0 });
  });

  it('while open they are rejected before a dedicated connection is even opened', async () => {
    const rig = await rigs.open();
    const { client, proxy } = rig;
    await tripByRefusal(rig);
    const accepted = proxy.connectionsAccepted;
    expectRejected((await outcome(client.blpop('circuit:blocking:empty', 0))).error, rig);
    expect(proxy.connectionsAccepted).toBe(accepted);
  });

  it('a blocking probe holds its slot for at most commandTimeout, so half-open cannot stick', async () => {
    const rig = await rigs.open({ commandTimeout: 100 });
    const { client, circuit } = rig;
    await tripUntilProbeDue(rig);
    const halfOpen = nextTransition(circuit, 'half_open');
    const blocked = client.blpop('circuit:blocking:probe', 0);
    await halfOpen;
    const admittedBy = performance.now();
    expectRejected((await outcome(client.ping())).error, rig, null);
    // The probe's bound was armed before `admittedBy`; a later, longer timer fires after it.
    await delay(Math.max(0, admittedBy + 101 - performance.now()));
    expect(circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 0, probeSuccesses: 0 });
    const closed = nextTransition(circuit, 'closed');
    expect(await client.ping()).toBe('PONG');
    await closed;
    // The blocked command still gets its reply; it no longer speaks for the circuit.
    await (await rigs.direct()).rpush('circuit:blocking:probe', ['x']);
    expect(await blocked).toEqual({ key: 'circuit:blocking:probe', element: 'x' });
    expect(circuit.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 0 });
  });
});

describe('telemetry', () => {
  it('reports each transition and rejection with endpoint tags, never a key', async () => {
    const meter = new RecordingMeter();
    const rig = await rigs.open({ meter });
    const { client, circuit } = rig;
    const transitions = recordTransitions(circuit);
    await tripUntilProbeDue(rig);
    expect((await outcome(client.get('circuit:secret-key'))).value).toBeNull();
    expect(transitions).toEqual(['closed>open', 'open>half_open', 'half_open>closed']);
    const measured = meter.measurements.filter((m) => m.instrument === Instruments.transitions.name);
    expect(
      measured.map(
        (m) => `${m.attributes!['respire.circuit.state.from']}>${m.attributes!['respire.circuit.state.to']}`,
      ),
    ).toEqual(transitions);
    for (const m of measured) {
      expect(m.attributes).toMatchObject({ 'server.address': rig.proxy.host, 'server.port': rig.proxy.port });
    }
    await tripByRefusal(rig);
    expect((await outcome(client.get('circuit:secret-key'))).error).toBeInstanceOf(RespireCircuitOpenError);
    expect(meter.total(Instruments.rejections.name)).toBe(1);
    const errors = meter.measurements.filter((m) => m.instrument === Instruments.errors.name);
    expect(errors.map((m) => m.attributes!['error.type'])).toEqual([
      'RespireConnectionError',
      'RespireConnectionError',
      'RespireConnectionError',
      'RespireConnectionError',
      'RespireCircuitOpenError',
    ]);
    expect(JSON.stringify(meter.measurements)).not.toContain('secret');
    expect(JSON.stringify(meter.measurements)).not.toContain('circuit:');
  });
});
