// Benchmark scenario `outage` (issue 6): a Redis blip under load, side by side. Respire with its
// circuit breaker, Respire without it, ioredis and node-redis, each in a process of its own and
// with its defaults, make PUBLISH and XADD calls through the test kit's fault proxy while an
// unrelated CPU task keeps time; the proxy black-holes Redis for `--blip` seconds, then heals.
// Rows go to latest.json, the chart to outage.svg beside it, and a side-by-side table to stderr.
// It runs after the throughput suites (`runsLast`), since it takes a minute and a half.
import { SUITE } from '../outage/results.js';
import { runScenarioSuite } from '../outage/scenario-suite.js';
import { outageSettings, runSettings } from '../outage/settings.js';
import { type InProcessSuite, redisEndpoint } from '../suite.js';

export const outageSuite: InProcessSuite & { runsLast: true } = {
  name: SUITE,
  runsLast: true,
  async run(context) {
    const target = { kind: 'standalone' as const, ...redisEndpoint(await context.redisUrl()) };
    return runScenarioSuite(
      {
        name: SUITE,
        settings: outageSettings(context.quick, runSettings(context).blipSeconds),
        target,
        about:
          'every client with its defaults, each in a process of its own, one after another, through a fault proxy',
        chart: { file: `${SUITE}.svg` },
      },
      context,
    );
  },
};

export default outageSuite;
