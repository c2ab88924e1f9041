// The resilient publisher killed with SIGKILL while it is spooling, then restarted on the same
// spool: every event it acknowledged reaches the stream, none twice after deduplication by key,
// and a torn record at the end of the spool is cut rather than replayed. The publisher runs as a
// child process from examples/resilient-publisher/main.ts, compiled once in beforeAll with tsc
// (test/kit/compile-entry.ts) into a scratch directory, so that the child is plain Node and the
// test does not share `build/` with `npm run bench`.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { readUniqueEvents } from '../../examples/resilient-publisher/consumer.js';
import { useTestClients } from '../client/support.js';
import { type CompiledEntry, compileEntry } from '../kit/compile-entry.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { expectDelivered, Progress, parseKey } from './resilient-publisher-kit.js';
import { lastSegment, segmentFiles, useScratchDirs } from './resilient-publisher-spool-kit.js';

const { open, startProxy } = useTestClients(useRedisServer());
const scratch = useScratchDirs();
let compiled: CompiledEntry | undefined;
let mainJs = '';

beforeAll(async () => {
  compiled = await compileEntry('examples/resilient-publisher/main.ts');
  mainJs = compiled.file;
});
afterAll(() => compiled?.remove());

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

interface Child {
  readonly process: ChildProcess;
  readonly stdout: Record<string, unknown>[];
  readonly stderr: Record<string, unknown>[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs main.js; every JSON line it prints is parsed, kept, and reported to `progress`. */
function run(args: string[], progress: Progress): Child {
  const child = spawn(process.execPath, [mainJs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const collect = (stream: NodeJS.ReadableStream, into: Record<string, unknown>[]) =>
    createInterface({ input: stream }).on('line', (line) => {
      // Anything not JSON (a Node warning) is kept as text.
      into.push(line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : { text: line });
      progress.notify();
    });
  const result: Child = {
    process: child,
    stdout: [],
    stderr: [],
    // 'close', not 'exit': every line the child wrote has been read by then.
    exited: new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal }))),
  };
  collect(child.stdout, result.stdout);
  collect(child.stderr, result.stderr);
  return result;
}

it('delivers every acknowledged event after a SIGKILL while spooling and a torn spool tail', async () => {
  const proxy = await startProxy();
  const direct = await open();
  const spool = scratch();
  const common = ['--redis', `${proxy.host}:${proxy.port}`, '--stream', 'crash:events', '--spool', spool];
  common.push('--deadline-ms', '100', '--open-duration-ms', '100', '--stats-interval-ms', '0');
  const progress = new Progress();
  const first = run(
    [...common, '--producers', '2', '--interval-ms', '0', '--run-id', 'crash', '--print-acks'],
    progress,
  );
  const acks = (outcome: string) => first.stdout.filter((line) => line.outcome === outcome).length;

  await progress.until('direct deliveries', () => acks('delivered') >= 50);
  await proxy.setMode('blackhole');
  await progress.until('spooled events', () => acks('spooled') >= 300);
  // Issue 18, defect 6: a `--drain` run next to the live publisher is refused (it used to replay
  // and delete segments the publisher was appending to) and touches nothing.
  const intruder = run([...common, '--drain'], progress);
  let intruderExit: { code: number | null } | undefined;
  void intruder.exited.then((exit) => {
    intruderExit = exit;
    progress.notify();
  });
  await progress.until('the second process to give up', () => intruderExit !== undefined, 5_000);
  expect(intruderExit).toEqual({ code: 1, signal: null });
  expect(intruder.stderr).toMatchObject([
    {
      level: 'error',
      event: 'spool-locked',
      message: expect.stringMatching(`in use by process ${first.process.pid}`),
    },
  ]);
  first.process.kill('SIGKILL');
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
  const acknowledged = new Set(
    first.stdout.flatMap((line) => (typeof line.ack === 'string' ? [line.ack] : [])),
  );
  expect(first.stdout.filter((line) => line.nack !== undefined)).toEqual([]);

  // A record whose write was cut short, as a power loss could leave it: a header promising 100
  // bytes, and 10 of them.
  const tornFile = lastSegment(spool);
  const torn = Buffer.alloc(18, 0xab);
  torn.writeUInt32LE(100, 0);
  fs.appendFileSync(tornFile, torn);
  const sizeWithTorn = fs.statSync(tornFile).size;

  await proxy.setMode('pass');
  const second = run([...common, '--drain'], progress);
  expect(await second.exited).toEqual({ code: 0, signal: null });
  expect(second.stderr.filter((line) => line.event === 'spool-tail-cut')).toMatchObject([
    { file: tornFile, offset: sizeWithTorn - 18, bytes: 18, reason: 'torn' },
  ]);
  expect(second.stdout.at(-1)).toMatchObject({ done: true, drained: true });
  expect(segmentFiles(spool)).toEqual([]);

  // Acks still in the child's stdout buffer died with it: events after a producer's last ack
  // we saw may be in the stream too. Nothing else may be.
  const lastAcked = new Map<string, number>();
  for (const key of acknowledged) {
    const { producer, seq } = parseKey(key);
    lastAcked.set(producer, Math.max(lastAcked.get(producer) ?? -1, seq));
  }
  const read = await readUniqueEvents(direct, 'crash:events');
  expectDelivered(read, acknowledged, (key) => {
    const { producer, seq } = parseKey(key);
    return acknowledged.has(key) || seq > (lastAcked.get(producer) ?? -1);
  });
  const replayed = second.stdout.at(-1)?.stats as { replayed: number };
  expect(replayed.replayed).toBeGreaterThanOrEqual(acks('spooled'));
});
