// The order test files start in: vitest's own (failed first, then the slowest or largest), with
// the files that start a Redis Cluster or Sentinel group spread through it. Those take the
// machine's one topology slot (topology-gate.ts) in turn, and their chain is the run's critical
// path: bunched at the start, every worker but one would wait for the slot; spread evenly, the
// slot sat idle while the next such file was still being imported after the last one ended. At
// most LIGHT_PER_HEAVY other files between two of them keeps the next one usually imported and
// waiting when the slot frees, while the other workers still run the rest.
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A call that starts a cluster or sentinel group, directly or through the benchmark's run. */
const STARTS_TOPOLOGY =
  /\b(useRedisCluster|useRedisSentinel|startRedisCluster|startRedisSentinel|sentinelFailoverSuite)\b/;

/**
 * Other files between two topology files, at most. A topology file holds the slot for about 5 s
 * on average (400 s over 81 files, clusters handed on between files) and another file takes a
 * worker for about 2.7 s, so two workers run ~3.7 others while one holds the slot: fewer than that
 * queued between them brings the next one forward. Shares weighted by each file's expected hold
 * (none after a handed-on cluster) measured slower: 539 s against 507 s in the same hour.
 */
const LIGHT_PER_HEAVY = 2.5;

export class TopologySpreadSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const heavy = sorted.filter(startsTopology);
    return spread(
      heavy,
      sorted.filter((file) => !heavy.includes(file)),
      LIGHT_PER_HEAVY,
    );
  }
}

function startsTopology(file: TestSpecification): boolean {
  return STARTS_TOPOLOGY.test(readFileSync(file.moduleId, 'utf8'));
}

/**
 * `heavy` in order with `light` in order between them, the same share of `light` after each (at
 * most `maxShare`), and the `light` left over at the end.
 */
export function spread<T>(heavy: readonly T[], light: readonly T[], maxShare = Infinity): T[] {
  const order: T[] = [];
  const share = Math.min(light.length / Math.max(heavy.length, 1), maxShare);
  let next = 0;
  heavy.forEach((file, index) => {
    order.push(file);
    for (const end = Math.round((index + 1) * share); next < end; next++) order.push(light[next]!);
  });
  return order.concat(light.slice(next));
}
