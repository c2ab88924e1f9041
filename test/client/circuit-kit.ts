// Set-up shared by the client's circuit tests (circuit-*.test.ts): a client behind the fault proxy
// with a short-lived circuit, trips caused by real faults, waits on circuit transitions (events)
// or on the circuit's own open deadline, and a meter that records every measurement.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'vitest';
import type { RespireCounter, RespireMeter, RespireMetricAttributes } from '../../src/client/metrics.js';
import type { ClientCircuit } from '../../src/client/node/circuit-gate.js';
import {
  RespireCircuitOpenError,
  type RespireClient,
  RespireConnectionError,
  type RespireOptions,
} from '../../src/index.js';
import type { FaultProxy } from '../kit/fault-proxy.js';
import type { RedisServer } from '../kit/redis-server.js';
import { encodePipeline } from '../kit/resp-wire.js';
import { type Outcome, outcome, useTestClients } from './support.js';

export { type Outcome, outcome };

export type CircuitState = ClientCircuit['state'];

/** A circuit that trips on the second failure in a row and probes 150 ms later, one probe at a time. */
export const FAST_CIRCUIT = {
  failureRateThreshold: 0.5,
  minimumFailureCount: 2,
  samplingWindow: 60_000,
  openDuration: 150,
  halfOpenProbeCount: 1,
} as const;

export interface CircuitRig {
  readonly client: RespireClient;
  readonly proxy: FaultProxy;
  readonly circuit: ClientCircuit;
}

/** Opens clients behind fresh proxies (support.ts's useTestClients); all destroyed after each test. */
export function useCircuitRigs(server: RedisServer) {
  const clients = useTestClients(server);
  return {
    /** `options.circuitBreaker` is laid over FAST_CIRCUIT; given as null or undefined, it is kept. */
    async open(options: Partial<RespireOptions> = {}): Promise<CircuitRig> {
      const given = options.circuitBreaker;
      const circuitBreaker =
        'circuitBreaker' in options && (given === null || given === undefined)
          ? given
          : { ...FAST_CIRCUIT, ...given };
      const { client, proxy } = await clients.proxied({
        commandTimeout: 2_000,
        connectTimeout: 500,
        reconnect: () => 10,
        ...options,
        circuitBreaker,
      });
      return { client, proxy, circuit: client.circuit! };
    },
    /** A client straight to the server, for the test's own reads and writes. */
    direct: (): Promise<RespireClient> => clients.open(),
  };
}

/**
 * The endpoint goes down: every connection is reset, new ones too. Resolves once the client has
 * noticed (it is trying to reconnect), so commands issued from now on find no connection.
 */
export async function takeDown(proxy: FaultProxy): Promise<void> {
  const accepted = proxy.connectionsAccepted;
  await proxy.setMode('reset');
  await proxy.waitForConnectionsAccepted(accepted + 1);
}

/** Resolves at the circuit's next transition into `to`; rejects after `timeoutMs` without one. */
export function nextTransition(circuit: ClientCircuit, to: CircuitState, timeoutMs = 5_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no transition to ${to} within ${timeoutMs} ms (state ${circuit.state})`));
    }, timeoutMs);
    const stop = circuit.onTransition((_from, next) => {
      if (next !== to) return;
      stop();
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Every transition from now on, as `from>to`. */
export function recordTransitions(circuit: ClientCircuit): string[] {
  const seen: string[] = [];
  circuit.onTransition((from, to) => seen.push(`${from}>${to}`));
  return seen;
}

/** Waits until the open circuit's own deadline has passed, so the next admission is a probe. */
export async function untilProbeDue(circuit: ClientCircuit): Promise<void> {
  const { openUntil } = circuit.snapshot();
  expect(openUntil).not.toBeNull();
  while (performance.now() < openUntil!) await delay(Math.ceil(openUntil! - performance.now()));
}

/**
 * Trips the circuit with real transport failures: `count` GETs are written into a black hole,
 * then every connection gets a TCP reset (they fail with RespireConnectionError, each a failure).
 * The proxy is left resetting every new connection: the endpoint is down until the test heals it.
 */
export async function tripWithReset(rig: CircuitRig, count = 2): Promise<void> {
  const { client, proxy, circuit } = rig;
  expect(circuit.state).toBe('closed');
  await proxy.setMode('blackhole');
  const keys = Array.from({ length: count }, (_, i) => `circuit:trip:${i}`);
  const bytes = encodePipeline(keys.map((key) => ['GET', key])).length;
  const before = proxy.bytesFromClient;
  // Their own deadline, past the reset: a rig's short commandTimeout must not turn them into timeouts.
  const failures = keys.map((key) => outcome(client.get(key, { timeout: 10_000 })));
  await proxy.waitForClientBytes(before + bytes);
  const opened = nextTransition(circuit, 'open');
  await proxy.setMode('reset');
  await opened;
  for (const failure of await Promise.all(failures)) {
    expect(failure.error).toBeInstanceOf(RespireConnectionError);
  }
}

/**
 * Trips the circuit without touching the shared connection: the proxy refuses new connections, so
 * `count` BLPOPs cannot open their dedicated connections (selection failures, each a failure).
 * The proxy listens again afterwards; the shared connection stayed up and ready throughout.
 */
export async function tripByRefusal(rig: CircuitRig, count = 2): Promise<void> {
  const { client, proxy, circuit } = rig;
  expect(circuit.state).toBe('closed');
  await proxy.setMode('refuse');
  const opened = nextTransition(circuit, 'open');
  const failures = await Promise.all(
    Array.from({ length: count }, (_, i) => outcome(client.blpop(`circuit:refused:${i}`, 1))),
  );
  await opened;
  for (const failure of failures) expect(failure.error).toBeInstanceOf(RespireConnectionError);
  await proxy.setMode('pass');
}

/** Trips by refusal and waits until the circuit admits probes: it is still `open`. */
export async function tripUntilProbeDue(rig: CircuitRig, count = 2): Promise<void> {
  await tripByRefusal(rig, count);
  await untilProbeDue(rig.circuit);
}

/**
 * Checks a rejection by the circuit: the endpoint as configured, and `retryAfter` either `null`
 * (every probe slot taken) or from 1 through `maxRetryAfter` (open).
 */
export function expectRejected(
  error: unknown,
  rig: CircuitRig,
  maxRetryAfter: number | null = FAST_CIRCUIT.openDuration,
): asserts error is RespireCircuitOpenError {
  expect(error).toBeInstanceOf(RespireCircuitOpenError);
  const rejection = error as RespireCircuitOpenError;
  expect(rejection.endpoint).toEqual({ host: rig.proxy.host, port: rig.proxy.port });
  if (maxRetryAfter === null) expect(rejection.retryAfter).toBeNull();
  else {
    expect(rejection.retryAfter).toBeGreaterThanOrEqual(1);
    expect(rejection.retryAfter).toBeLessThanOrEqual(maxRetryAfter);
  }
}

export interface Measurement {
  readonly instrument: string;
  readonly value: number;
  readonly attributes: RespireMetricAttributes | undefined;
}

/** A meter that keeps every counter it created and every measurement of each. */
export class RecordingMeter implements RespireMeter {
  readonly instruments: { name: string; unit: string | undefined }[] = [];
  readonly measurements: Measurement[] = [];

  createCounter(name: string, options?: { unit?: string }): RespireCounter {
    this.instruments.push({ name, unit: options?.unit });
    return {
      add: (value, attributes) => {
        this.measurements.push({ instrument: name, value, attributes });
      },
    };
  }

  /** The measurements recorded on `instrument`, in order. */
  of(instrument: string): Measurement[] {
    return this.measurements.filter((m) => m.instrument === instrument);
  }

  /** Sum of the values recorded on `instrument`. */
  total(instrument: string): number {
    let sum = 0;
    for (const m of this.of(instrument)) sum += m.value;
    return sum;
  }
}
