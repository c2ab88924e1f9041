// Runnable demo of the resilient publisher (see README.md): producers publish events through
// Respire with seed 001's circuit breaker; during a Redis outage they keep going on the spool.
// `--drain` replays a spool left by an earlier run and exits. Acknowledgements go to stdout as
// JSON lines with `--print-acks`; logs and periodic stats go to stderr.
import { randomUUID } from 'node:crypto';
import { setTimeout as pause, setImmediate as yieldToLoop } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { RespireClient } from '../../src/index.js';
import { jsonLinesToStderr } from './monitor.js';
import { ResilientPublisher } from './publisher.js';
import { Spool } from './spool.js';
import { SpoolLockedError } from './spool-errors.js';
import type { FsyncPolicy, OverflowPolicy } from './spool-options.js';

const { values: args } = parseArgs({
  options: {
    redis: { type: 'string', default: '127.0.0.1:6379' },
    stream: { type: 'string', default: 'events' },
    spool: { type: 'string', default: './resilient-publisher-spool' },
    producers: { type: 'string', default: '4' },
    events: { type: 'string', default: '0' },
    'interval-ms': { type: 'string', default: '10' },
    'run-id': { type: 'string' },
    'deadline-ms': { type: 'string', default: '250' },
    'open-duration-ms': { type: 'string', default: '5000' },
    fsync: { type: 'string', default: 'interval' },
    overflow: { type: 'string', default: 'reject' },
    'max-spool-bytes': { type: 'string' },
    'segment-bytes': { type: 'string' },
    'stats-interval-ms': { type: 'string', default: '1000' },
    'print-acks': { type: 'boolean', default: false },
    drain: { type: 'boolean', default: false },
  },
});

const [host = '127.0.0.1', port = '6379'] = args.redis.split(':');
const deadlineMs = Number(args['deadline-ms']);
const openDuration = Number(args['open-duration-ms']);
const optionalNumber = (text: string | undefined) => (text === undefined ? undefined : Number(text));

// The spool first: a directory another process holds is refused before anything else happens.
let spool: Spool;
try {
  spool = Spool.open({
    directory: args.spool,
    fsync: args.fsync as FsyncPolicy,
    overflow: args.overflow as OverflowPolicy,
    maxBytes: optionalNumber(args['max-spool-bytes']),
    segmentBytes: optionalNumber(args['segment-bytes']),
  });
} catch (error) {
  if (!(error instanceof SpoolLockedError)) throw error;
  jsonLinesToStderr({ level: 'error', event: 'spool-locked', message: error.message });
  process.exit(1);
}

const redis = await RespireClient.connect({
  endpoints: [{ host, port: Number(port) }],
  // A write either answers within the publisher's deadline or counts against the circuit.
  commandTimeout: deadlineMs,
  acquireTimeout: deadlineMs,
  connectTimeout: Math.max(deadlineMs, 500),
  // Seed 001: trip on a failing majority, wait 5 s doubling to 60 s across repeated trips, and
  // close only after several probes in a row succeed.
  circuitBreaker: {
    failureRateThreshold: 0.5,
    minimumFailureCount: 5,
    samplingWindow: 10_000,
    openDuration,
    openDurationMultiplier: 2,
    maxOpenDuration: openDuration * 12,
    halfOpenProbeCount: 3,
  },
});

const publisher = new ResilientPublisher(redis, {
  stream: args.stream,
  deadlineMs,
  spool,
});

const writeLine = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
const statsIntervalMs = Number(args['stats-interval-ms']);
const statsTimer =
  statsIntervalMs > 0
    ? setInterval(() => {
        jsonLinesToStderr({ level: 'info', event: 'stats', message: 'publisher stats', ...publisher.stats });
      }, statsIntervalMs)
    : undefined;

let stopping = false;
const stop = () => {
  stopping = true;
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

async function produce(producer: number, runId: string, events: number, intervalMs: number): Promise<void> {
  for (let seq = 0; !stopping && (events === 0 || seq < events); seq++) {
    const key = `${runId}:p${producer}:${seq}`;
    try {
      const outcome = await publisher.publish(`event ${seq} of producer ${producer}`, { key });
      if (args['print-acks']) writeLine({ ack: key, outcome });
    } catch (error) {
      if (args['print-acks']) writeLine({ nack: key, error: (error as Error).message });
    }
    // Stands in for the producer's own work; with no interval, still let I/O and timers run.
    if (intervalMs > 0) await pause(intervalMs);
    else await yieldToLoop();
  }
}

const interrupted = new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
if (!args.drain) {
  const runId = args['run-id'] ?? randomUUID().slice(0, 8);
  const producers = Number(args.producers);
  const tasks = Array.from({ length: producers }, (_, producer) =>
    produce(producer, runId, Number(args.events), Number(args['interval-ms'])),
  );
  await Promise.all(tasks);
}
// Whatever is still spooled is replayed before exit, unless interrupted (then it waits on disk).
if (!stopping) await Promise.race([publisher.drained(), interrupted]);

if (statsTimer !== undefined) clearInterval(statsTimer);
const stats = publisher.stats;
await publisher.close();
await redis.close();
writeLine({ done: true, drained: stats.spooledEvents === 0, stats });
