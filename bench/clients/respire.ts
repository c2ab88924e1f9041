// The `client` suite's Respire driver: RespireClient with its defaults, or with `returnBuffers`;
// explicit pipelines are `redis.batch()` entries written together by `execute()`, which resolves
// with their values.
import { RespireClient } from '../../src/index.js';
import { redisEndpoint } from '../suite.js';
import type { ClientDriver } from './driver.js';

/**
 * `BENCH_RESPIRE_COMMAND_TIMEOUT` (ms), for the bench's own tests: a quick run on a machine shared
 * with other work can keep a reply queued behind a pass of 1 MiB values past the 5 s default and
 * fail the run, which checks the report's shape, not speed. The deadline is one timer per
 * connection (deadline-timer.ts), so its length changes no figure; unset, the client's default.
 */
function commandTimeout(): number | undefined {
  const given = process.env.BENCH_RESPIRE_COMMAND_TIMEOUT;
  return given === undefined || given === '' ? undefined : Number(given);
}

export async function connectRespire(url: string, returnBuffers = false): Promise<ClientDriver> {
  const redis = await RespireClient.connect({
    endpoints: [redisEndpoint(url)],
    returnBuffers,
    commandTimeout: commandTimeout(),
  });
  return {
    get: (key) => redis.get(key),
    set: (key, value) => redis.set(key, value),
    pipelineGets(keys) {
      const batch = redis.batch();
      for (const key of keys) batch.get(key);
      return batch.execute();
    },
    close: () => redis.close(),
  };
}
