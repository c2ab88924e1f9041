// The order test files start in: vitest's own (failed first, then the slowest or largest), with
// the files that start a Redis Cluster or Sentinel group spread evenly through it. Those take the
// machine's one topology slot (topology-gate.ts); bunched at the start, where vitest's order puts
// them, every worker but one would wait for the slot.
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const STARTS_TOPOLOGY = /\b(useRedisCluster|useRedisSentinel|startRedisCluster|startRedisSentinel)\(/;

export class TopologySpreadSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const heavy = sorted.filter(startsTopology);
    return spread(
      heavy,
      sorted.filter((file) => !heavy.includes(file)),
    );
  }
}

function startsTopology(file: TestSpecification): boolean {
  return STARTS_TOPOLOGY.test(readFileSync(file.moduleId, 'utf8'));
}

/** `heavy` in order with `light` in order between them, the same share of `light` after each. */
export function spread<T>(heavy: readonly T[], light: readonly T[]): T[] {
  const order: T[] = [];
  const share = light.length / Math.max(heavy.length, 1);
  let next = 0;
  heavy.forEach((file, index) => {
    order.push(file);
    for (const end = Math.round((index + 1) * share); next < end; next++) order.push(light[next]!);
  });
  return order.concat(light.slice(next));
}
