// durable() (issue 13 "Durability batches"): WAIT answers when its own timeout ends, and Redis
// checks that timeout only on its cron (every 1000 / `hz` ms), so its reply comes up to that long
// after `timeout`. A client without a reply deadline (`commandTimeout: 0`) must wait for it, and one
// with a deadline must allow for that lateness: a deadline of `timeout` plus `commandTimeout` fails
// the acknowledgement as a response timeout (and closes the connection) just before Redis would
// have answered with the replica count.
//
// The server runs at `hz 1`, so WAIT 20 ms answers anywhere up to about a second late: a 300 ms
// commandTimeout is then far too short for the WAIT without the allowance, yet long enough that the
// write itself never times out on a loaded machine (10 ms did under the full suite).
import { describe, expect, it } from 'vitest';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer({ args: ['--hz', '1'] });
const { open } = useTestClients(server);

describe.each([0, 300])('the acknowledgement with commandTimeout %i', (commandTimeout) => {
  it('reports how many replicas confirmed once WAIT ends, as late as Redis answers', async () => {
    const redis = await open({ commandTimeout });
    for (let run = 0; run < 3; run++) {
      const batch = redis.durable({ replicas: 1, timeout: 20 });
      void batch.set(`durable:deadline:${run}`, '1');
      const report = await batch.execute();
      expect(report.acknowledgementError).toBeUndefined();
      expect(report.writes[0]).toMatchObject({ applied: true, acknowledged: false, replicas: 0 });
    }
  });
});
