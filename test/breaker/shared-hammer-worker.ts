// A worker thread of shared-concurrency.test.ts: attaches to the registry it is sent, waits at a
// barrier for the other workers, then runs a seeded schedule of admissions, completions (some
// twice) and clock steps on one endpoint's shared circuit, logging what it saw for the checker.
import { parentPort, workerData } from 'node:worker_threads';
import { CircuitOutcome, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { seededRandom } from '../../src/breaker/testing/index.js';

/** One run's instructions: the registry, the shared fake clock and barrier, this worker's seed. */
export interface HammerRun {
  buffer: SharedArrayBuffer;
  /** `[0]` the fake clock in ms, `[1]` the barrier count. */
  control: SharedArrayBuffer;
  workers: number;
  seed: number;
  operations: number;
  openDuration: number;
  maxOpenDuration: number;
}

/** What a worker saw: transitions it made (with the new generation), admissions and completions. */
export interface HammerLog {
  transitions: [from: string, to: string, generation: number][];
  /** The generation of each admission, in this worker's order. */
  admissions: number[];
  /** Each completion: the admission's generation and its outcome code. */
  completions: [generation: number, outcome: number][];
  /** Rejections whose retryAfter was outside 1 through maxOpenDuration (must stay 0). */
  badRetryAfter: number;
  /** Second completions that did not return false (must stay 0). */
  doubleCompletions: number;
  rejections: number;
}

function run(job: HammerRun, index: number): HammerLog {
  const control = new Int32Array(job.control);
  const random = seededRandom(job.seed * 7919 + index);
  const registry = SharedCircuitRegistry.attach(job.buffer, {
    now: () => Atomics.load(control, 0),
    random,
  });
  const circuit = registry.circuit('hammer:6379');
  const log: HammerLog = {
    transitions: [],
    admissions: [],
    completions: [],
    badRetryAfter: 0,
    doubleCompletions: 0,
    rejections: 0,
  };
  circuit.onTransition((from, to, generation) => log.transitions.push([from, to, generation]));
  const inFlight: number[] = [];
  const complete = (position: number) => {
    const ticket = inFlight[position]!;
    inFlight[position] = inFlight[inFlight.length - 1]!;
    inFlight.pop();
    const draw = random();
    const outcome =
      draw < 0.5 ? CircuitOutcome.Success : draw < 0.85 ? CircuitOutcome.Failure : CircuitOutcome.None;
    log.completions.push([circuit.ticketGeneration(ticket), outcome]);
    circuit.complete(ticket, outcome);
    if (random() < 0.05 && circuit.complete(ticket, CircuitOutcome.Failure)) log.doubleCompletions++;
  };
  // The barrier: every worker starts its schedule at once (a test spin, not the circuit's).
  Atomics.add(control, 1, 1);
  while (Atomics.load(control, 1) < job.workers);
  for (let i = 0; i < job.operations; i++) {
    const draw = random();
    // With nothing in flight a worker still steps the clock: an open circuit rejects every
    // admission, and a schedule that only retried would never reach the half-open state.
    if (draw < 0.45 || (inFlight.length === 0 && draw < 0.93)) {
      const ticket = circuit.tryAdmit();
      if (ticket >= 0) {
        inFlight.push(ticket);
        log.admissions.push(circuit.ticketGeneration(ticket));
      } else {
        log.rejections++;
        const retryAfter = circuit.lastRetryAfter;
        if (ticket === -1 && !(retryAfter >= 1 && retryAfter <= Math.ceil(job.maxOpenDuration)))
          log.badRetryAfter++;
      }
    } else if (draw < 0.93) {
      complete(Math.floor(random() * inFlight.length));
    } else {
      Atomics.add(control, 0, random() < 0.5 ? 1 : job.openDuration);
    }
  }
  while (inFlight.length > 0) complete(inFlight.length - 1);
  registry.detach();
  return log;
}

const { index } = workerData as { index: number };
parentPort!.on('message', (job: HammerRun) => parentPort!.postMessage(run(job, index)));
