// Issue 15's target alone (alternating.ts): `npx tsc -p tsconfig.bench.json && node
// build/bench/breaker-shared/uncontended.js [--rounds N] [--operations N] [--clock
// advancing|fixed]`: `advancing` moves 1 µs per read (as the suite's workers), `fixed` never moves
// (a turn-cached clock within one synchronous run).
import { parseArgs } from 'node:util';
import { measureAlternating } from './alternating.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    operations: { type: 'string', default: '2000000' },
    clock: { type: 'string', default: 'advancing' },
  },
});
const figures = measureAlternating(
  Number(values.rounds),
  Number(values.operations),
  values.clock === 'fixed' ? 0 : 0.001,
);
const { ratios } = figures;
console.log(
  `clock ${values.clock}: single-thread ${figures.singleNs.toFixed(1)} ns, shared ${figures.sharedNs.toFixed(1)} ns, ` +
    `ratio median ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)} (min ${ratios[0]!.toFixed(2)}, max ${ratios.at(-1)!.toFixed(2)})`,
);
