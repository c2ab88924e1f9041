// Benchmark suite `breaker-client`: what the circuit breaker costs inside RespireClient (issue 5
// "Benchmark"). The auto-pipelined GET case with `circuitBreaker: null`, with a closed circuit, and
// with a closed circuit plus a meter (target: within 3% of each other), and a command rejected by
// an open circuit, error object included (target: at most 2 µs), beside the error's construction
// alone. Each contender runs in a process of its own, so one's JIT feedback cannot shape another's.
import { RawConnection } from '../../test/kit/raw-connection.js';
import { flatString, flatten } from '../flat-strings.js';
import { asyncPasses, blackhole, syncPasses } from '../measure.js';
import {
  type CasePlan,
  type IsolatedSuite,
  type MeasureOptions,
  type PreparedContender,
  redisEndpoint,
} from '../suite.js';

const OFF = 'respire, circuitBreaker null';
const CLOSED = 'respire, circuit closed';
const CLOSED_METERED = 'respire, circuit closed, meter';
const OPEN = 'respire, circuit open';
const ERROR_ALONE = 'new RespireCircuitOpenError';

const GET_CASE = 'GET 16 B, Promise.all of 1000';
const REJECT_CASE = 'GET rejected by an open circuit, 1000 at once';
const ERROR_CASE = 'RespireCircuitOpenError construction';

/** Commands (or errors) per pass. */
const BATCH = 1000;
const VALUE_BYTES = 16;
/** The client name of the open-circuit contender, to find its blocked connection in CLIENT LIST. */
const OPEN_CLIENT_NAME = 'bench-breaker-client-open';

/** More rounds than the client suite: the on/off difference sought is a few percent. */
function measure(quick: boolean): MeasureOptions {
  return quick ? { warmupMs: 20, rounds: 3, roundMs: 20 } : { warmupMs: 500, rounds: 15, roundMs: 250 };
}

export const breakerClientSuite: IsolatedSuite = {
  name: 'breaker-client',
  plan(context): CasePlan[] {
    const options = measure(context.quick);
    return [
      { name: GET_CASE, contenders: [OFF, CLOSED, CLOSED_METERED], measure: options },
      { name: REJECT_CASE, contenders: [OPEN], measure: options },
      { name: ERROR_CASE, contenders: [ERROR_ALONE], measure: options },
    ];
  },
  async prepare(caseName, contender, context) {
    if (caseName === GET_CASE) return prepareGets(contender, await context.redisUrl());
    if (caseName === REJECT_CASE && contender === OPEN) return prepareRejections(await context.redisUrl());
    if (caseName === ERROR_CASE && contender === ERROR_ALONE) return prepareErrorConstruction();
    throw new Error(`breaker-client has no contender ${contender} in ${caseName}`);
  },
};

export default breakerClientSuite;

/** A meter that counts what it is asked for; the success path must ask for nothing. */
function countingMeter() {
  const meter = {
    instruments: 0,
    measurements: 0,
    createCounter() {
      meter.instruments++;
      return { add: () => void meter.measurements++ };
    },
  };
  return meter;
}

async function prepareGets(contender: string, url: string): Promise<PreparedContender> {
  const { RespireClient } = await import('../../src/index.js');
  const meter = countingMeter();
  const circuitBreaker = contender === OFF ? null : {};
  const redis = await RespireClient.connect({
    endpoints: [redisEndpoint(url)],
    circuitBreaker,
    ...(contender === CLOSED_METERED ? { meter } : {}),
  });
  const keys = Array.from({ length: BATCH }, (_, i) => flatten(`bench:breaker-client:${i}`));
  const value = flatString(VALUE_BYTES, 'v');
  await Promise.all(keys.map((key) => redis.set(key, value)));
  const promises: Promise<string | null>[] = new Array(BATCH);
  const pass = () => {
    for (let i = 0; i < BATCH; i++) promises[i] = redis.get(keys[i]!);
    return Promise.all(promises);
  };
  const checked = await pass();
  if (checked.some((reply) => reply !== value)) throw new Error(`${contender}: a GET returned a wrong value`);

  let good = 0;
  return {
    runFor: asyncPasses(async () => {
      const replies = await pass();
      for (let i = 0; i < replies.length; i++) if (replies[i]?.length === VALUE_BYTES) good++;
    }),
    units: [{ unit: 'ops/s', perPass: BATCH }],
    cpuPerPass: { unit: 'CPU µs/op', perPass: BATCH },
    check(passes) {
      if (good !== passes * BATCH) throw new Error(`${contender}: ${good} right replies in ${passes} passes`);
      if (meter.instruments !== 0 || meter.measurements !== 0) {
        throw new Error(`${contender}: successful GETs created instruments or recorded measurements`);
      }
    },
    close: () => redis.close(),
  };
}

/**
 * Opens the circuit without losing the shared connection: a BLPOP on a dedicated connection of the
 * same endpoint is killed by the server (CLIENT KILL), a connection failure of a sent command, so
 * with `minimumFailureCount: 1` and a threshold just above 0 the circuit opens. `openDuration` is
 * long enough to stay open for the whole run, and every GET is then rejected right before its
 * write, on a live connection: the path a client takes while its endpoint is out.
 */
async function prepareRejections(url: string): Promise<PreparedContender> {
  const { RespireCircuitOpenError, RespireClient } = await import('../../src/index.js');
  const endpoint = redisEndpoint(url);
  const redis = await RespireClient.connect({
    endpoints: [endpoint],
    clientName: OPEN_CLIENT_NAME,
    circuitBreaker: { minimumFailureCount: 1, failureRateThreshold: 1e-9, openDuration: 1e9 },
  });
  const blocked = redis.blpop('bench:breaker-client:never', 0).then(
    () => new Error('the BLPOP returned'),
    (error: unknown) => error,
  );
  await killBlockedConnection(endpoint);
  const failure = await blocked;
  const first = await redis.get('bench:breaker-client:0').then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(first instanceof RespireCircuitOpenError)) {
    throw new Error(
      `the circuit did not open: the BLPOP failed with ${String(failure)}, then a GET gave ${String(first)}`,
    );
  }

  let rejected = 0;
  const onRejected = (error: unknown) => {
    if (error instanceof RespireCircuitOpenError) rejected++;
  };
  const promises: Promise<void>[] = new Array(BATCH);
  const pass = () => {
    for (let i = 0; i < BATCH; i++)
      promises[i] = redis.get('bench:breaker-client:0').then(undefined, onRejected);
    return Promise.all(promises);
  };
  return {
    runFor: asyncPasses(pass),
    units: [{ unit: 'rejections/s', perPass: BATCH }],
    cpuPerPass: { unit: 'CPU µs/op', perPass: BATCH },
    check(passes) {
      if (rejected !== passes * BATCH)
        throw new Error(`${rejected} rejections in ${passes} passes of ${BATCH}`);
    },
    close: () => redis.close(),
  };
}

/** Finds the connection blocked in BLPOP of the open-circuit contender and has the server kill it. */
async function killBlockedConnection(endpoint: { host: string; port: number }): Promise<void> {
  const admin = await RawConnection.open(endpoint);
  try {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const list = (await admin.request([['CLIENT', 'LIST']])).toString();
      const line = list
        .split('\n')
        .find((entry) => entry.includes(` name=${OPEN_CLIENT_NAME} `) && entry.includes(' cmd=blpop '));
      const id = line === undefined ? undefined : /(?:^|\s)id=(\d+)/.exec(line)?.[1];
      if (id !== undefined) {
        await admin.request([['CLIENT', 'KILL', 'ID', id]]);
        return;
      }
    }
    throw new Error('the BLPOP never reached the server');
  } finally {
    admin.socket.destroy();
  }
}

/** The rejection's error object alone: what a rejection costs beyond the breaker's check. */
async function prepareErrorConstruction(): Promise<PreparedContender> {
  const { RespireCircuitOpenError } = await import('../../src/index.js');
  const endpoint = { host: '127.0.0.1', port: 6379 };
  let built = 0;
  const pass = () => {
    let last: unknown;
    for (let i = 0; i < BATCH; i++) last = new RespireCircuitOpenError(endpoint, i);
    blackhole.value = last;
    built += BATCH;
  };
  pass();
  if (!(blackhole.value instanceof RespireCircuitOpenError)) throw new Error('no error was built');
  return {
    runFor: syncPasses(pass),
    units: [{ unit: 'errors/s', perPass: BATCH }],
    cpuPerPass: { unit: 'CPU µs/op', perPass: BATCH },
    check(passes) {
      if (built !== (passes + 1) * BATCH) throw new Error(`${built} errors built in ${passes} passes`);
    },
  };
}
