import { defineConfig } from 'vitest/config';
import { TopologySpreadSequencer } from './test/kit/topology-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real redis-server processes start per test file; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most files wait on servers and timers, not the CPU: three files at a time keep two cores
    // busy (vitest's default on two cores is one). Cluster and Sentinel groups still start one at
    // a time (test/kit/topology-gate.ts), spread through the run so that no worker waits long.
    maxWorkers: 3,
    sequence: { sequencer: TopologySpreadSequencer },
    // Clusters that files release are handed on to the next file asking for the same options.
    globalSetup: ['test/kit/cluster-pool-setup.ts'],
  },
});
