// Benchmark suite `breaker-shared` (issue 15): closed admit+success on a circuit shared across
// worker threads (SharedCircuitRegistry) with 1, 2 and 4 workers, on one shared circuit (the
// contended case: threads take turns at it, and a success that finds another thread's successes
// pending takes the circuit's guard) and on a circuit each, against the single-thread
// CircuitBreaker (one per worker) in the same run. Each worker times its own loop after a
// barrier; a row is the workers' mean ns/op, median over rounds. On a machine with fewer cores
// than workers the threads also wait for a core, in every contender alike. The contenders run one
// after another on the wall clock, so a loaded machine moves the ratios; the uncontended target
// is then measured like for like (breaker-shared/alternating.ts: one thread, rounds alternating,
// CPU time).
//
// Then the outage: 4 service threads, each a client sending GETs one after another, while Redis
// answers 600 ms late behind the fault proxy (past the 300 ms command timeout, so every command
// sent fails, and each failure drops its connection for a slow reconnect): how many commands
// reached the proxy, and how many failed, with the shared registry and with a circuit per client.
import { Worker } from 'node:worker_threads';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { CommandTap } from '../../test/kit/command-tap.js';
import { startFaultProxy } from '../../test/kit/fault-proxy.js';
import { measureAlternating } from '../breaker-shared/alternating.js';
import type { OutageWorkerData, OutageWorkerReport } from '../breaker-shared/outage-worker.js';
import type { AdmitWorkerData } from '../breaker-shared/worker.js';
import { type BenchContext, type BenchResult, type InProcessSuite, redisEndpoint } from '../suite.js';

const OUTAGE_WORKERS = 4;
const OUTAGE_CIRCUIT = { minimumFailureCount: 5, openDuration: 60_000 };

function next<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

/** The slow-Redis outage with `OUTAGE_WORKERS` service threads; what reached the proxy and what failed. */
async function outage(
  context: BenchContext,
  buffer: SharedArrayBuffer | null,
): Promise<{ reached: number; failures: number }> {
  const proxy = await startFaultProxy({ target: redisEndpoint(await context.redisUrl()) });
  const tap = await CommandTap.start({ host: proxy.host, port: proxy.port });
  const workers: Worker[] = [];
  try {
    const data: OutageWorkerData = {
      port: tap.port,
      buffer,
      circuit: OUTAGE_CIRCUIT,
      concurrency: 1,
      durationMs: context.quick ? 2_000 : 8_000,
    };
    const url = new URL('../breaker-shared/outage-worker.js', import.meta.url);
    for (let i = 0; i < OUTAGE_WORKERS; i++) workers.push(new Worker(url, { workerData: data }));
    await Promise.all(workers.map((worker) => next(worker)));
    await proxy.setMode('delay', 600, 'toClient');
    const reports = workers.map((worker) => next<OutageWorkerReport>(worker));
    for (const worker of workers) worker.postMessage('go');
    const done = await Promise.all(reports);
    return { reached: tap.arrivals.length, failures: done.reduce((sum, report) => sum + report.failures, 0) };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
    await tap.stop();
    await proxy.stop();
  }
}

const WORKER_COUNTS = [1, 2, 4] as const;
type Contender =
  | 'single-thread CircuitBreaker (one per worker)'
  | 'shared: one circuit'
  | 'shared: a circuit each';
const CONTENDERS: readonly Contender[] = [
  'single-thread CircuitBreaker (one per worker)',
  'shared: one circuit',
  'shared: a circuit each',
];

/** Runs `workers` threads on the contender's circuits; the mean over workers of each round, then the median. */
async function measure(contender: Contender, workers: number, quick: boolean): Promise<number> {
  const registry =
    contender === 'single-thread CircuitBreaker (one per worker)' ? null : new SharedCircuitRegistry();
  const rounds = quick ? 3 : 9;
  // One barrier cell per round, for all the case's workers.
  const barrier = new SharedArrayBuffer(4 * rounds);
  const threads = Array.from({ length: workers }, (_, index) => {
    const data: AdmitWorkerData = {
      buffer: registry?.buffer ?? null,
      endpoint: contender === 'shared: a circuit each' ? `redis-${index}:6379` : 'redis:6379',
      barrier,
      workers,
      operations: quick ? 20_000 : 500_000,
      warmupMs: quick ? 20 : 300,
      rounds,
    };
    return data;
  });
  const results = await Promise.all(
    threads.map(
      (data) =>
        new Promise<number[]>((resolve, reject) => {
          const worker = new Worker(new URL('../breaker-shared/worker.js', import.meta.url), {
            workerData: data,
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  const perRound = Array.from({ length: rounds }, (_, round) => {
    const sum = results.reduce((total, worker) => total + worker[round]!, 0);
    return sum / workers;
  });
  return perRound.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}

export const breakerSharedSuite: InProcessSuite = {
  name: 'breaker-shared',
  async run(context: BenchContext): Promise<BenchResult[]> {
    const rows: BenchResult[] = [];
    for (const workers of WORKER_COUNTS) {
      for (const contender of CONTENDERS) {
        if (workers === 1 && contender === 'shared: a circuit each') continue; // the same as one circuit
        context.log(`breaker-shared: ${contender}, ${workers} worker(s)`);
        const value = await measure(contender, workers, context.quick);
        rows.push({
          suite: 'breaker-shared',
          case: `admit+success, ${workers} worker(s)`,
          client: contender,
          value,
          unit: 'ns/op',
        });
      }
    }
    // The target of issue 15: shared at most 2x the single-thread circuit, uncontended.
    const figure = (workers: number, client: Contender) =>
      rows.find((row) => row.case === `admit+success, ${workers} worker(s)` && row.client === client)!.value;
    for (const workers of WORKER_COUNTS) {
      const single = figure(workers, 'single-thread CircuitBreaker (one per worker)');
      const shared: Contender[] =
        workers === 1 ? ['shared: one circuit'] : ['shared: one circuit', 'shared: a circuit each'];
      for (const client of shared) {
        rows.push({
          suite: 'breaker-shared',
          case: `admit+success, ${workers} worker(s): shared ÷ single-thread`,
          client,
          value: figure(workers, client) / single,
          unit: 'x',
        });
      }
    }
    // The target itself, like for like: one thread, CPU time, rounds alternating (alternating.ts);
    // the rows above time each contender alone on the wall clock, which a loaded machine moves.
    context.log('breaker-shared: uncontended, alternating rounds on CPU time');
    const like = measureAlternating(context.quick ? 3 : 15, context.quick ? 200_000 : 2_000_000, 0.001);
    const likeCase = 'admit+success, uncontended, alternating rounds, CPU time';
    rows.push(
      {
        suite: 'breaker-shared',
        case: likeCase,
        client: CONTENDERS[0]!,
        value: like.singleNs,
        unit: 'CPU ns/op',
      },
      {
        suite: 'breaker-shared',
        case: likeCase,
        client: CONTENDERS[1]!,
        value: like.sharedNs,
        unit: 'CPU ns/op',
      },
      {
        suite: 'breaker-shared',
        case: `${likeCase}: shared ÷ single-thread, median round`,
        client: CONTENDERS[1]!,
        value: like.ratios[Math.floor(like.ratios.length / 2)]!,
        unit: 'x',
      },
    );
    const outageCase = `outage: ${OUTAGE_WORKERS} workers, replies 600 ms late (minimumFailureCount ${OUTAGE_CIRCUIT.minimumFailureCount})`;
    for (const [client, shared] of [
      ['shared registry', true],
      ['a circuit per client', false],
    ] as const) {
      context.log(`breaker-shared: outage, ${client}`);
      const buffer = shared ? new SharedCircuitRegistry({ ...OUTAGE_CIRCUIT, maxEndpoints: 4 }).buffer : null;
      const { reached, failures } = await outage(context, buffer);
      rows.push({
        suite: 'breaker-shared',
        case: outageCase,
        client,
        value: reached,
        unit: 'commands reached the proxy',
      });
      rows.push({ suite: 'breaker-shared', case: outageCase, client, value: failures, unit: 'failures' });
    }
    return rows;
  },
};
