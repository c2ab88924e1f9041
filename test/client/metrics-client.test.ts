// The client's metrics end to end (seed 000 "Circuit metrics", API.md "Metrics"): real faults
// through the fault proxy in front of a real redis-server trip the circuit and heal it, and a
// recording meter must see every transition, each rejection (a batch per entry, a transaction
// once), the errors callers got and the retries, with the documented tags and never a key, a
// value or a password. The open delay passes on the client's injected clock, not in a sleep.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CircuitTransitionDiagnostic,
  DiagnosticChannels,
  RespireCircuitOpenError,
  type RespireClient,
  RespireConfigurationError,
  RespireConnectionError,
  RespireMetricGroups,
  RespireServerError,
} from '../../src/index.js';
import type { FaultProxy } from '../kit/fault-proxy.js';
import { encodePipeline } from '../kit/resp-wire.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { RecordingMeter } from './circuit-kit.js';
import { useTestClients } from './support.js';

const server = useRedisServer();

const KEY = 'metrics:secret-key:42';
const VALUE = 'secret-value-42';
const OPEN_MS = 60_000;
const LIBRARY = 'Respire:0.1.0';

/** Real time plus a jump the test controls: the open delay passes without waiting for it. */
class JumpClock {
  private offset = 0;
  now(): number {
    return performance.now() + this.offset;
  }
  jump(ms: number): void {
    this.offset += ms;
  }
}

const { proxied: open } = useTestClients(server, {
  commandTimeout: 5_000,
  connectTimeout: 500,
  reconnect: () => 10,
});
const listeners: ((message: unknown) => void)[] = [];
afterEach(() => {
  for (const listener of listeners.splice(0)) unsubscribe(DiagnosticChannels.circuitTransition, listener);
});

/** Every circuit transition of the proxy's endpoint, from the diagnostics channel, as `from>to`. */
function transitionsOf(proxy: FaultProxy): { seen: string[]; next(to: string): Promise<void> } {
  const seen: string[] = [];
  const waiting: { to: string; resolve(): void }[] = [];
  const listener = (message: unknown) => {
    const { endpoint, from, to } = message as CircuitTransitionDiagnostic;
    if (endpoint.port !== proxy.port) return;
    seen.push(`${from}>${to}`);
    for (const waiter of waiting.splice(0)) {
      if (waiter.to === to) waiter.resolve();
      else waiting.push(waiter);
    }
  };
  subscribe(DiagnosticChannels.circuitTransition, listener);
  listeners.push(listener);
  return { seen, next: (to) => new Promise((resolve) => waiting.push({ to, resolve })) };
}

function settle<T>(promise: Promise<T>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  );
}

/**
 * GETs written into a black hole, then every connection reset: each fails with a connection
 * error after it was sent, a failure of the endpoint. The proxy keeps resetting new connections.
 */
async function tripWithReset(client: RespireClient, proxy: FaultProxy, count: number): Promise<unknown[]> {
  await proxy.setMode('blackhole');
  const before = proxy.bytesFromClient;
  const gets = Array.from({ length: count }, () => settle(client.get(KEY)));
  await proxy.waitForClientBytes(before + count * encodePipeline([['GET', KEY]]).length);
  await proxy.setMode('reset');
  return Promise.all(gets);
}

describe('metrics of a client with a circuit breaker', () => {
  it('count transitions, rejections and errors with the documented tags, and never a key', async () => {
    const meter = new RecordingMeter();
    const clock = new JumpClock();
    const circuitBreaker = { minimumFailureCount: 1, failureRateThreshold: 0.1, openDuration: OPEN_MS };
    const { client, proxy } = await open({ meter, clock, circuitBreaker });
    const transitions = transitionsOf(proxy);
    await client.set(KEY, VALUE);
    expect(await settle(client.lpush(KEY, VALUE))).toBeInstanceOf(RespireServerError);
    expect(meter.of('respire.circuit.transitions')).toEqual([]); // creating a closed circuit is none

    const opened = transitions.next('open');
    const [failure] = await tripWithReset(client, proxy, 1);
    await opened;
    expect(failure).toBeInstanceOf(RespireConnectionError);

    // While open: a command once, a batch once per entry, a transaction once.
    const rejections = () => meter.of('respire.circuit.rejections').length;
    expect(await settle(client.get(KEY))).toBeInstanceOf(RespireCircuitOpenError);
    expect(rejections()).toBe(1);
    const batch = client.batch();
    for (let i = 0; i < 3; i++) batch.get(`${KEY}:${i}`);
    const failures = await batch.tryExecute();
    expect(failures.map((f) => f.error instanceof RespireCircuitOpenError)).toEqual([true, true, true]);
    expect(rejections()).toBe(4);
    // redis.client.errors counts what each caller received: the command and every batch entry.
    const openErrors = meter
      .of('redis.client.errors')
      .filter((m) => m.attributes?.['error.type'] === 'RespireCircuitOpenError');
    expect(openErrors).toHaveLength(4);
    const tx = client.multi();
    tx.set(KEY, 'other');
    tx.get(KEY);
    expect(await settle(tx.exec())).toBeInstanceOf(RespireCircuitOpenError);
    expect(rejections()).toBe(5);
    // …and what exec()'s caller received.
    expect(
      meter
        .of('redis.client.errors')
        .filter((m) => m.attributes?.['error.type'] === 'RespireCircuitOpenError'),
    ).toHaveLength(5);

    // Heal, let the open delay pass, and the probe closes the circuit.
    await proxy.setMode('pass');
    clock.jump(OPEN_MS);
    const closed = transitions.next('closed');
    expect(await client.get(KEY)).toBe(VALUE);
    await closed;
    expect(transitions.seen).toEqual(['closed>open', 'open>half_open', 'half_open>closed']);

    const common = {
      'server.address': proxy.host,
      'server.port': proxy.port,
      'db.system.name': 'redis',
      'redis.client.library': LIBRARY,
    };
    expect(meter.of('respire.circuit.transitions')).toEqual(
      transitions.seen.map((step) => {
        const [from, to] = step.split('>');
        return {
          instrument: 'respire.circuit.transitions',
          value: 1,
          attributes: { ...common, 'respire.circuit.state.from': from, 'respire.circuit.state.to': to },
        };
      }),
    );
    for (const m of meter.of('respire.circuit.rejections')) {
      expect(m).toEqual({ instrument: 'respire.circuit.rejections', value: 1, attributes: common });
    }
    const errorTypes = meter.of('redis.client.errors').map((m) => m.attributes?.['error.type']);
    expect(errorTypes).toEqual(
      expect.arrayContaining(['WRONGTYPE', 'RespireConnectionError', 'RespireCircuitOpenError']),
    );
    for (const m of meter.of('redis.client.errors')) expect(m.attributes).toMatchObject(common);
    expect(meter.instruments).toEqual(
      expect.arrayContaining([
        { name: 'respire.circuit.transitions', unit: '{transition}' },
        { name: 'respire.circuit.rejections', unit: '{operation}' },
        { name: 'redis.client.errors', unit: '{error}' },
      ]),
    );
    expect(JSON.stringify(meter.measurements)).not.toMatch(/secret|metrics:/);
  });

  it('create no instrument when no group is selected, through a trip and a rejection', async () => {
    const meter = new RecordingMeter();
    const { client, proxy } = await open({
      meter,
      metricGroups: [],
      circuitBreaker: { minimumFailureCount: 1, failureRateThreshold: 0.1, openDuration: OPEN_MS },
    });
    const transitions = transitionsOf(proxy);
    const opened = transitions.next('open');
    await tripWithReset(client, proxy, 1);
    await opened;
    expect(await settle(client.get(KEY))).toBeInstanceOf(RespireCircuitOpenError);
    expect(transitions.seen).toEqual(['closed>open']); // diagnostics still see it
    expect(meter.instruments).toEqual([]);
  });

  it('count each retry, and never one of a rejection', async () => {
    const meter = new RecordingMeter();
    const { client, proxy } = await open({
      meter,
      metricGroups: [RespireMetricGroups.Retries],
      retry: { maxAttempts: 3 },
      circuitBreaker: { minimumFailureCount: 1, failureRateThreshold: 0.1, openDuration: OPEN_MS },
    });
    // Two GETs fail after they were sent; GET only reads, so each is retried, and each retry is
    // rejected by the circuit their failures opened; a rejection is not retried again.
    const outcomes = await tripWithReset(client, proxy, 2);
    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(RespireCircuitOpenError);
    expect(meter.instruments.map((i) => i.name)).toEqual(['respire.command.retries']);
    expect(meter.measurements).toEqual(
      outcomes.map(() => ({
        instrument: 'respire.command.retries',
        value: 1,
        attributes: {
          'server.address': proxy.host,
          'server.port': proxy.port,
          'db.system.name': 'redis',
          'redis.client.library': LIBRARY,
        },
      })),
    );
  });
});

describe('metrics of a client without a circuit breaker', () => {
  it('count a retry that succeeds', async () => {
    const meter = new RecordingMeter();
    const { client, proxy } = await open({ meter, retry: { maxAttempts: 2 } });
    await client.set(KEY, VALUE);
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const get = client.get(KEY);
    await proxy.waitForClientBytes(before + encodePipeline([['GET', KEY]]).length);
    await proxy.setMode('reset');
    await proxy.setMode('pass');
    expect(await get).toBe(VALUE);
    expect(meter.of('respire.command.retries')).toHaveLength(1);
    expect(meter.of('redis.client.errors')).toEqual([]);
    expect(meter.instruments.map((i) => i.name)).toEqual(['respire.command.retries']);
  });

  it('count a batch entry rejected as it is queued once, like the same call on the client', async () => {
    const meter = new RecordingMeter();
    const { client } = await open({ meter });
    const badTimeout = { timeout: 1.5 };
    await expect(client.get(KEY, badTimeout)).rejects.toBeInstanceOf(RespireConfigurationError);
    const batch = client.batch();
    batch.get(KEY, badTimeout);
    batch.get(KEY);
    await expect(batch.execute()).rejects.toBeInstanceOf(RespireConfigurationError);
    const types = meter.of('redis.client.errors').map((m) => m.attributes?.['error.type']);
    expect(types).toEqual(['RespireConfigurationError', 'RespireConfigurationError']);
  });
});
