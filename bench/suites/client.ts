// Benchmark suite `client`: Respire's RespireClient end to end against ioredis and node-redis on
// the runner's redis-server, each peer at its defaults and at its fastest configuration (ioredis
// with auto-pipelining, node-redis without its per-command timeout), each client in a worker
// process of its own, with
// `redis-benchmark -c 1 -P 16` on the same server as the ceiling of the pipelined cases, and
// `-P 100` as the ceiling of one pipeline of 100 at a time.
import { RawConnection } from '../../test/kit/raw-connection.js';
import { checkedPasses } from '../clients/checked-passes.js';
import type { ClientDriver, ConnectDriver } from '../clients/driver.js';
import { findRedisBenchmark, redisBenchmarkRounds } from '../clients/redis-benchmark.js';
import { stringFloor } from '../clients/string-floor.js';
import { flatString, flatten } from '../flat-strings.js';
import { roundTripMeasureOptions } from '../measure.js';
import {
  type BenchContext,
  type CasePlan,
  type IsolatedSuite,
  type PreparedContender,
  redisEndpoint,
} from '../suite.js';

const RESPIRE = 'respire';
/** Bulk strings as Buffers: views of the read buffer, which the young generation does not copy. */
const RESPIRE_BUFFERS = 'respire returnBuffers';
const IOREDIS = 'ioredis';
const IOREDIS_AUTO = 'ioredis auto-pipelining';
const NODE_REDIS = 'node-redis';
/** node-redis's fastest configuration: no per-command timeout (an AbortSignal.timeout each). */
const NODE_REDIS_NO_TIMEOUT = 'node-redis, no command timeout';
const CEILING = 'redis-benchmark -c 1 -P 16';
/** The large-string GET cases' floor: the strings alone, as V8 charges any client (string-floor.ts). */
const STRING_FLOOR = 'floor: the strings alone, no client';
const PIPELINE_CEILING = 'redis-benchmark -c 1 -P 100';
/** redis-benchmark's pipeline depth for each ceiling contender. */
const CEILING_DEPTH: Record<string, number> = { [CEILING]: 16, [PIPELINE_CEILING]: 100 };

/** Each client by contender name; imported only inside that contender's worker. */
const DRIVERS: Record<string, ConnectDriver> = {
  [RESPIRE]: async (url) => (await import('../clients/respire.js')).connectRespire(url),
  [RESPIRE_BUFFERS]: async (url) => (await import('../clients/respire.js')).connectRespire(url, true),
  [IOREDIS]: async (url) => (await import('../clients/ioredis.js')).connectIoredis(url, false),
  [IOREDIS_AUTO]: async (url) => (await import('../clients/ioredis.js')).connectIoredis(url, true),
  [NODE_REDIS]: async (url) => (await import('../clients/node-redis.js')).connectNodeRedis(url),
  [NODE_REDIS_NO_TIMEOUT]: async (url) =>
    (await import('../clients/node-redis.js')).connectNodeRedis(url, false),
};

/** How a pass issues its commands. */
type Pattern =
  /** `batch` GETs, each awaited before the next is sent. */
  | 'sequential'
  /** `batch` commands issued at once and awaited with Promise.all (auto-pipelining's case). */
  | 'concurrent'
  /** One explicit pipeline of `batch` GETs through the client's pipeline API. */
  | 'pipeline';

interface ClientCase {
  name: string;
  command: 'GET' | 'SET';
  pattern: Pattern;
  valueBytes: number;
  /** Commands per pass, on as many distinct keys. */
  batch: number;
  /**
   * The caller holds on to a pass's replies until the next pass has its own, as a loop of
   * `const values = await …` does. Large strings then live through collections of the young
   * generation, which copies them, instead of dying young.
   */
  keepReplies?: boolean;
  contenders: readonly string[];
}

/** Every peer twice, at its defaults and at its fastest configuration (issue 17). */
const EVERY_CLIENT = [RESPIRE, IOREDIS, IOREDIS_AUTO, NODE_REDIS, NODE_REDIS_NO_TIMEOUT];

const CASES: readonly ClientCase[] = [
  {
    name: 'GET 16 B, sequential awaits',
    command: 'GET',
    pattern: 'sequential',
    valueBytes: 16,
    batch: 100,
    contenders: EVERY_CLIENT,
  },
  {
    name: 'GET 16 B, Promise.all of 1000',
    command: 'GET',
    pattern: 'concurrent',
    valueBytes: 16,
    batch: 1000,
    contenders: [...EVERY_CLIENT, CEILING],
  },
  {
    name: 'SET 16 B, Promise.all of 1000',
    command: 'SET',
    pattern: 'concurrent',
    valueBytes: 16,
    batch: 1000,
    contenders: [...EVERY_CLIENT, CEILING],
  },
  {
    name: 'GET 16 B, pipelines of 100',
    command: 'GET',
    pattern: 'pipeline',
    valueBytes: 16,
    batch: 100,
    // One pipeline in flight at a time: each pass waits a round trip, which the ceiling shows.
    // ioredis's auto-pipelining does not apply to an explicit pipeline, so it appears once.
    contenders: [RESPIRE, IOREDIS, NODE_REDIS, NODE_REDIS_NO_TIMEOUT, PIPELINE_CEILING],
  },
  {
    name: 'GET 1 KiB, Promise.all of 100',
    command: 'GET',
    pattern: 'concurrent',
    valueBytes: 1024,
    batch: 100,
    contenders: EVERY_CLIENT,
  },
  {
    name: 'GET 100 KiB, Promise.all of 100',
    command: 'GET',
    pattern: 'concurrent',
    valueBytes: 100 * 1024,
    batch: 100,
    contenders: [...EVERY_CLIENT, STRING_FLOOR],
  },
  {
    name: 'GET 100 KiB, Promise.all of 100, replies kept a pass',
    command: 'GET',
    pattern: 'concurrent',
    valueBytes: 100 * 1024,
    batch: 100,
    keepReplies: true,
    contenders: [RESPIRE, RESPIRE_BUFFERS, ...EVERY_CLIENT.slice(1), STRING_FLOOR],
  },
  // Large string arguments (issue 17): each client's way of turning a string into socket bytes.
  {
    name: 'SET 100 KiB, Promise.all of 100',
    command: 'SET',
    pattern: 'concurrent',
    valueBytes: 100 * 1024,
    batch: 100,
    keepReplies: true,
    contenders: EVERY_CLIENT,
  },
  // 1 MiB in batches of 10, not 100: a pass of 100 MiB outlasts a round and, on a loaded machine,
  // the 5 s default command timeout of the replies it queues behind.
  {
    name: 'GET 1 MiB, Promise.all of 10, replies kept a pass',
    command: 'GET',
    pattern: 'concurrent',
    valueBytes: 1024 * 1024,
    batch: 10,
    keepReplies: true,
    contenders: [...EVERY_CLIENT, STRING_FLOOR],
  },
  {
    name: 'SET 1 MiB, Promise.all of 10',
    command: 'SET',
    pattern: 'concurrent',
    valueBytes: 1024 * 1024,
    batch: 10,
    keepReplies: true,
    contenders: EVERY_CLIENT,
  },
];

export const clientSuite: IsolatedSuite = {
  name: 'client',
  plan(context): CasePlan[] {
    const ceiling = findRedisBenchmark() !== undefined;
    if (!ceiling) context.log('client: no redis-benchmark on PATH, so no redis-benchmark rows');
    return CASES.map((clientCase) => ({
      name: clientCase.name,
      contenders: clientCase.contenders.filter((contender) => ceiling || !(contender in CEILING_DEPTH)),
      measure: roundTripMeasureOptions(context.quick),
    }));
  },
  async prepare(caseName, contender, context) {
    const clientCase = CASES.find((candidate) => candidate.name === caseName);
    if (clientCase === undefined) throw new Error(`client has no case ${caseName}`);
    const url = await context.redisUrl();
    if (contender === STRING_FLOOR) {
      const { name, batch, valueBytes, keepReplies } = clientCase;
      return stringFloor(contender, name, batch, valueBytes, keepReplies);
    }
    const depth = CEILING_DEPTH[contender];
    if (depth !== undefined) return prepareCeiling(clientCase, depth, url, context);
    const connect = DRIVERS[contender];
    if (connect === undefined) throw new Error(`client has no contender ${contender}`);
    return prepareClient(clientCase, contender, await connect(url));
  },
};

export default clientSuite;

/** The keys a case reads or writes; every worker writes the same values to them, so order is moot. */
function caseKeys(clientCase: ClientCase): string[] {
  return Array.from({ length: clientCase.batch }, (_, i) =>
    flatten(`bench:client:${clientCase.valueBytes}:${i}`),
  );
}

async function prepareClient(
  clientCase: ClientCase,
  contender: string,
  driver: ClientDriver,
): Promise<PreparedContender> {
  const keys = caseKeys(clientCase);
  const value = flatString(clientCase.valueBytes, 'v');
  await Promise.all(keys.map((key) => driver.set(key, value)));
  return checkedPasses({
    contender,
    caseName: clientCase.name,
    calls: clientCase.batch,
    expected: clientCase.command === 'SET' ? 'OK' : value,
    pass: passFor(clientCase, driver, keys, value),
    keepReplies: clientCase.keepReplies,
    close: () => driver.close(),
  });
}

function passFor(
  clientCase: ClientCase,
  driver: ClientDriver,
  keys: readonly string[],
  value: string,
): () => Promise<unknown[]> {
  const { batch, command, pattern } = clientCase;
  if (pattern === 'pipeline') return () => driver.pipelineGets(keys);
  if (pattern === 'sequential') {
    return async () => {
      const replies: unknown[] = new Array(batch);
      for (let i = 0; i < batch; i++) replies[i] = await driver.get(keys[i]!);
      return replies;
    };
  }
  const promises: Promise<unknown>[] = new Array(batch);
  if (command === 'SET') {
    return () => {
      for (let i = 0; i < batch; i++) promises[i] = driver.set(keys[i]!, value);
      return Promise.all(promises);
    };
  }
  return () => {
    for (let i = 0; i < batch; i++) promises[i] = driver.get(keys[i]!);
    return Promise.all(promises);
  };
}

/** redis-benchmark's key when run without -r; its SET test writes it, its GET test reads it. */
const BENCHMARK_KEY = 'key:__rand_int__';

async function prepareCeiling(
  clientCase: ClientCase,
  pipeline: number,
  url: string,
  context: BenchContext,
): Promise<PreparedContender> {
  const binary = findRedisBenchmark();
  if (binary === undefined) throw new Error('redis-benchmark is not on PATH');
  const test = clientCase.command === 'SET' ? 'set' : 'get';
  const options = {
    binary,
    url,
    // At most 200,000 requests and about 500 MB of values a run (50 MB quick):
    // 200,000 SETs of 100 KiB would be 20 GB, far past a round.
    requests: Math.max(
      1_000,
      Math.min(
        context.quick ? 20_000 : 200_000,
        Math.floor((context.quick ? 5e7 : 5e8) / clientCase.valueBytes),
      ),
    ),
    valueBytes: clientCase.valueBytes,
    pipeline,
  };
  // Its SET test writes the key its GET test reads, with a value of the case's size. One in flight:
  // 1,000 SETs 100 deep are over too fast for redis-benchmark to print a rate.
  await redisBenchmarkRounds({ ...options, test: 'set', requests: 1_000, pipeline: 1 })(0);
  const connection = await RawConnection.open(redisEndpoint(url));
  try {
    const reply = (await connection.request([['STRLEN', BENCHMARK_KEY]])).toString();
    if (reply !== `:${clientCase.valueBytes}\r\n`) {
      throw new Error(`redis-benchmark left ${BENCHMARK_KEY} with STRLEN ${JSON.stringify(reply)}`);
    }
  } finally {
    connection.socket.destroy();
  }
  return {
    runFor: redisBenchmarkRounds({ ...options, test }),
    units: [{ unit: 'ops/s', perPass: 1 }],
  };
}
