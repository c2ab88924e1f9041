// Benchmark suite `breaker`: the endpoint circuit breaker's hot paths in ns/op (closed admission
// plus success, open rejection, failure recording into a full ring, a half-open probe cycle), bytes
// allocated per closed admission, and memory per circuit holding 1024 samples. No peer: in-process.
import { getHeapSpaceStatistics } from 'node:v8';
import {
  type CircuitAdmission,
  CircuitBreaker,
  CircuitOutcome,
  type RespireCircuitBreakerOptions,
} from '../../src/breaker/index.js';
import { garbageCollector } from '../garbage-collector.js';
import { blackhole, type Contender, measureInterleaved, measureOptions } from '../measure.js';
import type { BenchContext, BenchResult, InProcessSuite } from '../suite.js';

/** Operations per timed pass: enough that the loop, not the round bookkeeping, is measured. */
const OPS_PER_PASS = 10_000;
const SAMPLES = 1024;

/**
 * A clock costing next to nothing, +1 µs per read, so the breaker's own work is what is measured.
 * Its time lives in a Float64Array cell: on Node 20 a double returned by `performance.now()` or
 * kept in a closure variable is a fresh 16-byte heap number on every call.
 */
function counterClock(): { now(): number } {
  const cell = new Float64Array(1);
  return { now: () => (cell[0]! += 0.001) };
}

interface TimedCase {
  case: string;
  client: string;
  pass(): void;
}

function closedAdmitSuccess(clock: { now(): number } | undefined, api: 'ticket' | 'object'): () => void {
  const breaker = new CircuitBreaker({}, clock ?? {});
  if (api === 'ticket') {
    return () => {
      for (let i = 0; i < OPS_PER_PASS; i++) breaker.complete(breaker.tryAdmit(), CircuitOutcome.Success);
    };
  }
  return () => {
    for (let i = 0; i < OPS_PER_PASS; i++) (breaker.tryAcquire() as CircuitAdmission).success();
  };
}

function openRejection(clock: { now(): number } | undefined, api: 'ticket' | 'object'): () => void {
  const breaker = new CircuitBreaker({ minimumFailureCount: 1, openDuration: 1e15 }, clock ?? {});
  breaker.complete(breaker.tryAdmit(), CircuitOutcome.Failure);
  if (breaker.state !== 'open') throw new Error('breaker bench: the circuit did not open');
  if (api === 'ticket') {
    return () => {
      let sum = 0;
      for (let i = 0; i < OPS_PER_PASS; i++) sum += breaker.tryAdmit() + breaker.lastRetryAfter;
      blackhole.value = sum;
    };
  }
  return () => {
    let sum = 0;
    for (let i = 0; i < OPS_PER_PASS; i++) {
      const result = breaker.tryAcquire();
      if (!result.admitted) sum += result.retryAfter ?? 0;
    }
    blackhole.value = sum;
  };
}

/** 7 of every 8 outcomes fail: below the 0.9 threshold, so the full ring never trips. */
function failureIntoFullRing(): () => void {
  const options: RespireCircuitBreakerOptions = {
    failureRateThreshold: 0.9,
    minimumFailureCount: 1,
    maximumSampleCount: SAMPLES,
  };
  const breaker = new CircuitBreaker(options, counterClock());
  for (let i = 0; i < SAMPLES; i++) breaker.complete(breaker.tryAdmit(), CircuitOutcome.Success);
  return () => {
    for (let i = 0; i < OPS_PER_PASS; i++) {
      breaker.complete(breaker.tryAdmit(), (i & 7) === 7 ? CircuitOutcome.Success : CircuitOutcome.Failure);
    }
    if (breaker.state !== 'closed' || breaker.snapshot().total !== SAMPLES)
      throw new Error('breaker bench: ring case broke');
  };
}

/** closed -> open (a failure) -> half_open (the probe) -> closed (its success): three transitions. */
function probeCycle(): () => void {
  let time = 0;
  const breaker = new CircuitBreaker({ minimumFailureCount: 1, openDuration: 1 }, { now: () => time });
  return () => {
    for (let i = 0; i < OPS_PER_PASS; i++) {
      breaker.complete(breaker.tryAdmit(), CircuitOutcome.Failure);
      time += 1;
      breaker.complete(breaker.tryAdmit(), CircuitOutcome.Success);
    }
    if (breaker.state !== 'closed') throw new Error('breaker bench: the probe cycle did not close');
  };
}

function clockRead(): void {
  let sum = 0;
  for (let i = 0; i < OPS_PER_PASS; i++) sum += performance.now();
  blackhole.value = sum;
}

function timedCases(): TimedCase[] {
  return [
    {
      case: 'closed admit+success',
      client: 'respire tickets, counter clock',
      pass: closedAdmitSuccess(counterClock(), 'ticket'),
    },
    {
      case: 'closed admit+success',
      client: 'respire tryAcquire, counter clock',
      pass: closedAdmitSuccess(counterClock(), 'object'),
    },
    {
      case: 'closed admit+success',
      client: 'respire tickets, performance.now',
      pass: closedAdmitSuccess(undefined, 'ticket'),
    },
    { case: 'closed admit+success', client: 'floor: performance.now() alone', pass: clockRead },
    {
      case: 'open rejection',
      client: 'respire tickets, performance.now',
      pass: openRejection(undefined, 'ticket'),
    },
    {
      case: 'open rejection',
      client: 'respire tryAcquire, performance.now',
      pass: openRejection(undefined, 'object'),
    },
    {
      case: 'open rejection',
      client: 'respire tickets, counter clock',
      pass: openRejection(counterClock(), 'ticket'),
    },
    {
      case: 'failure into full 1024 ring',
      client: 'respire tickets, counter clock',
      pass: failureIntoFullRing(),
    },
    { case: 'half-open probe cycle', client: 'respire tickets, fake clock', pass: probeCycle() },
  ];
}

/** Heap plus ArrayBuffer backing stores (the rings live off-heap), after full collections. */
function settledBytes(gc: () => void): number {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Bytes per circuit: `count` circuits, each with a full ring of 1024 outcomes. */
function memoryPerCircuit(count: number, gc: () => void): number {
  const clock = counterClock();
  const before = settledBytes(gc);
  const circuits: CircuitBreaker[] = [];
  for (let i = 0; i < count; i++) {
    const breaker = new CircuitBreaker({ maximumSampleCount: SAMPLES }, clock);
    for (let j = 0; j < SAMPLES; j++) breaker.complete(breaker.tryAdmit(), CircuitOutcome.Success);
    circuits.push(breaker);
  }
  const after = settledBytes(gc);
  if (circuits.some((circuit) => circuit.snapshot().total !== SAMPLES))
    throw new Error('breaker bench: ring not full');
  blackhole.value = circuits;
  return (after - before) / count;
}

/** Bytes in the young generation, where short-lived objects (boxed doubles, admissions) go. */
function youngBytes(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space' || space.space_name === 'new_large_object_space')
      bytes += space.space_used_size;
  }
  return bytes;
}

/**
 * Bytes allocated per operation of `pass`: young-generation growth over short stretches that fit
 * in it, after a collection. Old and code space are left out: recompilation after a full
 * collection lands there, intermittently, and is no per-operation cost.
 */
function allocationPerOperation(pass: () => void, gc: () => void): number {
  for (let i = 0; i < 200; i++) pass(); // optimised before measuring
  const figures: number[] = [];
  for (let round = 0; round < 7; round++) {
    gc();
    const before = youngBytes();
    for (let i = 0; i < 5; i++) pass(); // 50,000 operations
    figures.push((youngBytes() - before) / (5 * OPS_PER_PASS));
  }
  return Math.max(0, figures.sort((a, b) => a - b)[3]!);
}

/** Allocation per closed admission + success, and of the clock read alone for comparison. */
function allocationResults(gc: () => void): BenchResult[] {
  const rows: [string, () => void][] = [
    ['respire tickets, counter clock', closedAdmitSuccess(counterClock(), 'ticket')],
    ['respire tryAcquire, counter clock', closedAdmitSuccess(counterClock(), 'object')],
    ['respire tickets, performance.now', closedAdmitSuccess(undefined, 'ticket')],
    ['floor: performance.now() alone', clockRead],
  ];
  // The measurement's own allocation (the statistics objects), taken off every row.
  const sink = new Float64Array(1);
  const overhead = allocationPerOperation(() => {
    for (let i = 0; i < OPS_PER_PASS; i++) sink[0]! += i;
  }, gc);
  return rows.map(([client, pass]) => ({
    suite: 'breaker',
    case: 'closed admit+success allocation',
    client,
    value: Math.max(0, allocationPerOperation(pass, gc) - overhead),
    unit: 'bytes/op',
  }));
}

export const breakerSuite: InProcessSuite = {
  name: 'breaker',
  async run(context: BenchContext): Promise<BenchResult[]> {
    const gc = garbageCollector();
    // Allocation first, while the breaker's clock call site has seen one clock and is inlined, as
    // in a client with its single clock. (An out-of-line clock call boxes the double it returns.)
    const results = allocationResults(gc);
    const cases = timedCases();
    const contenders: Contender[] = cases.map((c, index) => ({ name: String(index), pass: c.pass }));
    context.log(`breaker: timing ${cases.length} cases`);
    const measured = measureInterleaved(contenders, measureOptions(context.quick));
    measured.forEach((m, index) => {
      results.push({
        suite: 'breaker',
        case: cases[index]!.case,
        client: cases[index]!.client,
        value: 1e9 / (m.passesPerSecond * OPS_PER_PASS),
        unit: 'ns/op',
      });
    });
    const circuits = context.quick ? 1_000 : 10_000;
    context.log(`breaker: memory of ${circuits} circuits with ${SAMPLES} samples each`);
    results.push({
      suite: 'breaker',
      case: `memory per circuit at ${SAMPLES} samples (${circuits} circuits)`,
      client: 'respire',
      value: memoryPerCircuit(circuits, gc),
      unit: 'bytes',
    });
    return results;
  },
};
