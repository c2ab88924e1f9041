// CircuitGate on its own (circuit-gate.ts), on a fake clock and fake timers: admission tickets,
// rejections built only when rejecting, health mapped to outcomes, checks and selection failures
// for commands without a connection, the bound on probes without a reply deadline, and `borrow`.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CircuitOutcome } from '../../src/breaker/index.js';
import { CircuitGate, type CircuitTelemetry } from '../../src/client/node/circuit-gate.js';
import {
  RespireAuthenticationError,
  RespireCircuitOpenError,
  RespireConnectionError,
  RespireTimeoutError,
} from '../../src/index.js';
import type { Channel } from '../../src/transport/channel.js';
import { Command, CommandFlags } from '../../src/transport/command.js';
import { Health } from '../../src/transport/health.js';

const endpoint = { host: 'cache.example', port: 6380 };

function setup(overrides: { commandTimeout?: number; halfOpenProbeCount?: number } = {}) {
  const clock = { ms: 1_000, now: () => clock.ms };
  const events: string[] = [];
  const telemetry: CircuitTelemetry = {
    circuitTransition: (at, from, to) => events.push(`${at.host}:${from}>${to}`),
    circuitRejection: (at) => events.push(`${at.host}:rejection`),
  };
  const gate = new CircuitGate({
    endpoint,
    circuitBreaker: {
      failureRateThreshold: 0.5,
      minimumFailureCount: 1,
      samplingWindow: 10_000,
      maximumSampleCount: 100,
      openDuration: 500,
      halfOpenProbeCount: overrides.halfOpenProbeCount ?? 1,
      openDurationMultiplier: 1,
      maxOpenDuration: 500,
      openDurationJitter: 0,
    },
    commandTimeout: overrides.commandTimeout ?? 100,
    clock,
    random: { random: () => 0 },
    telemetry,
  });
  return { gate, clock, events };
}

function command(flags = 0, timeoutMs = 100): Command<unknown> {
  return new Command(['GET', 'k'], flags, undefined, undefined, timeoutMs);
}

/** Admits and writes a command as the connection does: the gate it reports to is set. */
function admitted(gate: CircuitGate, flags = 0, timeoutMs = 100): Command<unknown> {
  const next = command(flags, timeoutMs);
  expect(gate.admit(next)).toBeUndefined();
  next.gate = gate;
  return next;
}

function trip(gate: CircuitGate): void {
  admitted(gate).reportHealth(Health.Failure);
  expect(gate.circuit.state).toBe('open');
}

const connectionLost = () => new RespireConnectionError('lost', { endpoint, written: false });

describe('CircuitGate', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('passes a health as the outcome with the same code', () => {
    expect([Health.Success, Health.Failure, Health.None]).toEqual([
      CircuitOutcome.Success,
      CircuitOutcome.Failure,
      CircuitOutcome.None,
    ]);
  });

  it('admits with a ticket and records each health once', () => {
    const { gate } = setup();
    const ok = admitted(gate);
    expect(typeof ok.admission).toBe('number');
    expect(gate.circuit.snapshot().admissionsInFlight).toBe(1);
    ok.reportHealth(Health.Success);
    ok.reportHealth(Health.Failure);
    admitted(gate).reportHealth(Health.None);
    expect(gate.circuit.snapshot()).toMatchObject({
      state: 'closed',
      total: 1,
      failures: 0,
      admissionsInFlight: 0,
    });
  });

  it('rejects while open with the endpoint and the exact retryAfter, and counts each rejection', () => {
    const { gate, clock, events } = setup();
    trip(gate);
    expect(events).toEqual(['cache.example:closed>open']);
    clock.ms += 123.5;
    const rejection = gate.admit(command());
    expect(rejection).toBeInstanceOf(RespireCircuitOpenError);
    expect(rejection).toMatchObject({ endpoint, retryAfter: 377 });
    expect(gate.checkWithoutConnection(command())).toMatchObject({ retryAfter: 377 });
    expect(events.filter((event) => event.endsWith('rejection'))).toHaveLength(2);
  });

  it('half-open with every slot taken rejects with retryAfter null', () => {
    const { gate, clock, events } = setup({ halfOpenProbeCount: 2 });
    trip(gate);
    clock.ms += 500;
    const probes = [admitted(gate), admitted(gate)];
    expect(gate.admit(command())).toMatchObject({ retryAfter: null });
    probes[0]!.reportHealth(Health.None);
    const third = admitted(gate);
    for (const probe of [probes[1]!, third]) probe.reportHealth(Health.Success);
    expect(events).toEqual([
      'cache.example:closed>open',
      'cache.example:open>half_open',
      'cache.example:rejection',
      'cache.example:half_open>closed',
    ]);
  });

  it('checks a command without a connection; past the open delay a waiting command holds a probe slot', () => {
    const { gate, clock } = setup({ halfOpenProbeCount: 1 });
    const closedWaiter = command();
    expect(gate.checkWithoutConnection(closedWaiter)).toBeUndefined();
    expect(closedWaiter.gate).toBeUndefined();
    trip(gate);
    expect(gate.checkWithoutConnection(command(CommandFlags.TransactionStep))).toBeUndefined();
    expect(gate.checkWithoutConnection(command())).toBeInstanceOf(RespireCircuitOpenError);
    clock.ms += 500;
    const probe = command();
    expect(gate.checkWithoutConnection(probe)).toBeUndefined();
    expect(probe.gate).toBe(gate);
    expect(gate.circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1 });
    const refused = gate.checkWithoutConnection(command());
    expect(refused).toBeInstanceOf(RespireCircuitOpenError);
    expect((refused as RespireCircuitOpenError).retryAfter).toBeNull();
    // The probe waited in vain: a selection failure reopens the circuit.
    expect(gate.selectionFailed(probe, connectionLost())).toBeInstanceOf(RespireConnectionError);
    expect(gate.circuit.state).toBe('open');
  });

  it('a selection failure is a failure; while open a rejection; on a half-open probe a new open interval', () => {
    const { gate, clock, events } = setup({ halfOpenProbeCount: 1 });
    admitted(gate).reportHealth(Health.Success);
    admitted(gate).reportHealth(Health.Success);
    const lost = connectionLost();
    expect(gate.selectionFailed(command(CommandFlags.TransactionStep), lost)).toBe(lost);
    expect(gate.circuit.snapshot()).toMatchObject({ failures: 0, total: 2 });
    expect(gate.selectionFailed(command(), lost)).toBe(lost);
    expect(gate.circuit.snapshot()).toMatchObject({ state: 'closed', failures: 1, total: 3 });
    expect(gate.selectionFailed(command(), lost)).toBe(lost);
    expect(gate.circuit.state).toBe('open');
    expect(gate.selectionFailed(command(), lost)).toBeInstanceOf(RespireCircuitOpenError);
    clock.ms += 500;
    expect(gate.selectionFailed(command(), lost)).toBe(lost);
    expect(gate.circuit.snapshot()).toMatchObject({ state: 'open', openUntil: clock.ms + 500 });
    expect(events.slice(-2)).toEqual(['cache.example:open>half_open', 'cache.example:half_open>open']);
  });

  it('a probe without a reply deadline frees its slot after commandTimeout; others are not bounded', () => {
    const { gate, clock } = setup();
    admitted(gate, CommandFlags.Blocking);
    expect(vi.getTimerCount()).toBe(0);
    trip(gate);
    clock.ms += 500;
    const blocking = admitted(gate, CommandFlags.Blocking);
    expect(gate.circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1 });
    vi.advanceTimersByTime(99);
    expect(gate.circuit.snapshot().probesInFlight).toBe(1);
    vi.advanceTimersByTime(1);
    expect(gate.circuit.snapshot()).toMatchObject({
      state: 'half_open',
      probesInFlight: 0,
      probeSuccesses: 0,
    });
    // Its late reply changes nothing; a probe with a deadline arms no timer and closes the circuit.
    blocking.reportHealth(Health.Success);
    admitted(gate).reportHealth(Health.Success);
    expect(vi.getTimerCount()).toBe(0);
    expect(gate.circuit.state).toBe('closed');
  });

  it('a bounded probe that completes in time clears its timer; with commandTimeout 0 the bound is openDuration', () => {
    const { gate, clock } = setup({ commandTimeout: 0 });
    trip(gate);
    clock.ms += 500;
    const probe = admitted(gate, 0, 0);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(499);
    probe.reportHealth(Health.Success);
    expect(vi.getTimerCount()).toBe(0);
    expect(gate.circuit.state).toBe('closed');
  });

  it('borrow: refused while open without acquiring; a failed connect counts only when it is the endpoint', async () => {
    const { gate } = setup({ halfOpenProbeCount: 1 });
    const failing = (error: Error) => ({
      acquire: vi.fn(() => Promise.reject(error)),
      isClosed: () => false,
    });
    const auth = new RespireAuthenticationError('WRONGPASS', { endpoint });
    const capacity = new RespireTimeoutError('no room', 'acquire', { endpoint });
    for (const error of [auth, capacity]) await expect(gate.borrow(failing(error))).rejects.toBe(error);
    expect(gate.circuit.snapshot()).toMatchObject({ state: 'closed', total: 0 });
    const lost = connectionLost();
    await expect(gate.borrow(failing(lost))).rejects.toBe(lost);
    expect(gate.circuit.state).toBe('open');
    const pool = { acquire: vi.fn(() => Promise.resolve({} as Channel)), isClosed: () => false };
    await expect(gate.borrow(pool)).rejects.toBeInstanceOf(RespireCircuitOpenError);
    expect(pool.acquire).not.toHaveBeenCalled();
  });

  it('dispose stops reporting transitions', () => {
    const { gate, events } = setup();
    gate.dispose();
    trip(gate);
    expect(events).toEqual([]);
  });
});
