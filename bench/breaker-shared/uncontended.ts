// Issue 15's target, measured like for like: closed admit+success on a shared circuit against the
// single-thread CircuitBreaker, uncontended (one thread, this one), in one process, rounds
// alternating between the two, on CPU time (process.cpuUsage: no other thread runs here), so that
// a loaded machine slows both alike. The suite `breaker-shared` times each contender in its own
// workers on the wall clock, whose figures swing with the machine's load.
// `npx tsc -p tsconfig.bench.json && node build/bench/breaker-shared/uncontended.js [--rounds N]
// [--operations N] [--clock advancing|fixed]`: `advancing` moves 1 µs per read (as the suite's
// workers), `fixed` never moves (a turn-cached clock within one synchronous run).
import { parseArgs } from 'node:util';
import {
  CircuitBreaker,
  type CircuitBreakerEnvironment,
  CircuitOutcome,
  SharedCircuitRegistry,
} from '../../src/breaker/index.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    operations: { type: 'string', default: '2000000' },
    clock: { type: 'string', default: 'advancing' },
  },
});
const rounds = Number(values.rounds);
const operations = Number(values.operations);
const step = values.clock === 'fixed' ? 0 : 0.001;

function clock(): CircuitBreakerEnvironment {
  const cell = new Float64Array(1);
  return { now: () => (cell[0]! += step) };
}

const single = new CircuitBreaker({}, clock());
const shared = SharedCircuitRegistry.attach(new SharedCircuitRegistry().buffer, clock()).circuit(
  'redis:6379',
);

// One loop per contender, so that each call site stays monomorphic.
function passSingle(n: number): void {
  for (let i = 0; i < n; i++) single.complete(single.tryAdmit(), CircuitOutcome.Success);
}
function passShared(n: number): void {
  for (let i = 0; i < n; i++) shared.complete(shared.tryAdmit(), CircuitOutcome.Success);
}

function cpuNs(pass: (n: number) => void): number {
  const start = process.cpuUsage();
  pass(operations);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / operations;
}

for (let i = 0; i < 20; i++) {
  passSingle(50_000);
  passShared(50_000);
}
const singles: number[] = [];
const shareds: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  // Alternate which goes first, so that neither always follows the other.
  const first = round % 2 === 0;
  const a = first ? cpuNs(passSingle) : 0;
  const b = cpuNs(passShared);
  const c = first ? a : cpuNs(passSingle);
  singles.push(c);
  shareds.push(b);
  ratios.push(b / c);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
if (shared.state !== 'closed' || single.state !== 'closed') throw new Error('a circuit left closed');
console.log(
  `clock ${values.clock}: single-thread ${median(singles).toFixed(1)} ns, shared ${median(shareds).toFixed(1)} ns, ` +
    `ratio median ${median(ratios).toFixed(2)} (min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)})`,
);
