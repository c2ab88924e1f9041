// A contender's own process (forked by bench/isolation.ts): imports one suite module and, case by
// case, prepares that one contender, times rounds on request and reports back over IPC. Nothing
// else runs here, so what the contender loads affects only its own figures.
import { pathToFileURL } from 'node:url';
import { inspectIsolation } from './isolation-check.js';
import type { BenchContext, IsolatedSuite, PreparedContender } from './suite.js';
import { isIsolatedSuite } from './suite.js';
import { type FromWorker, parseWorkerArgv, type ToWorker, type WorkerArguments } from './worker-protocol.js';

function send(message: FromWorker): void {
  process.send!(message);
}

async function findSuite(modulePath: string, name: string): Promise<IsolatedSuite> {
  const exports = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  for (const candidate of Object.values(exports)) {
    const suite = candidate as IsolatedSuite;
    if (typeof suite === 'object' && suite !== null && suite.name === name && isIsolatedSuite(suite)) {
      return suite;
    }
  }
  throw new Error(`${modulePath} exports no isolated suite named ${name}`);
}

/** What the runner holds for the suites (its server, its cluster), asked for once over IPC. */
function askRunnerOnce<T>(
  need: 'need-redis-url' | 'need-redis-cluster',
  answer: (message: ToWorker) => { value: T } | { error: string } | undefined,
): () => Promise<T> {
  let asked: Promise<T> | undefined;
  return () => {
    asked ??= new Promise<T>((resolve, reject) => {
      const onMessage = (message: ToWorker): void => {
        const answered = answer(message);
        if (answered === undefined) return;
        process.off('message', onMessage);
        if ('value' in answered) resolve(answered.value);
        else reject(new Error(answered.error));
      };
      process.on('message', onMessage);
      send({ type: need });
    });
    return asked;
  };
}

/** Answers the runner's requests for one contender, one case at a time. */
class ContenderWorker {
  private current: PreparedContender | undefined;
  private passes = 0;

  constructor(
    private readonly suite: IsolatedSuite,
    private readonly args: WorkerArguments,
    private readonly context: BenchContext,
  ) {}

  async answer(message: ToWorker): Promise<FromWorker | undefined> {
    switch (message.type) {
      case 'prepare': {
        if (this.current !== undefined) throw new Error('prepare before the previous case was checked');
        this.current = await this.suite.prepare(message.caseName, this.args.contender, this.context);
        this.passes = 0;
        return { type: 'ready', units: [...this.current.units], cpuPerPass: this.current.cpuPerPass };
      }
      case 'run': {
        const before = process.cpuUsage();
        const round = await this.prepared().runFor(message.durationMs);
        const cpu = process.cpuUsage(before);
        this.passes += round.passes;
        return {
          type: 'ran',
          passes: round.passes,
          elapsedMs: round.elapsedMs,
          cpuMs: (cpu.user + cpu.system) / 1000,
        };
      }
      case 'check': {
        const contender = this.prepared();
        this.current = undefined;
        try {
          await contender.check?.(this.passes);
        } finally {
          await contender.close?.();
        }
        return { type: 'checked' };
      }
      case 'finish':
        return { type: 'done', isolation: inspectIsolation() };
      default:
        return undefined;
    }
  }

  private prepared(): PreparedContender {
    if (this.current === undefined) throw new Error('no case is prepared');
    return this.current;
  }
}

async function main(): Promise<void> {
  if (process.send === undefined)
    throw new Error('bench/worker.js runs only as a forked child of the runner');
  const args = parseWorkerArgv(process.argv.slice(2));
  const context: BenchContext = {
    quick: args.quick,
    redisUrl: askRunnerOnce('need-redis-url', (message) => {
      if (message.type !== 'redis-url') return undefined;
      return 'url' in message ? { value: message.url } : message;
    }),
    redisCluster: askRunnerOnce('need-redis-cluster', (message) => {
      if (message.type !== 'redis-cluster') return undefined;
      return 'cluster' in message ? { value: message.cluster } : message;
    }),
    log: (line) => send({ type: 'log', line }),
  };
  const worker = new ContenderWorker(await findSuite(args.module, args.suite), args, context);
  // The runner sends a request only once the previous one is answered; chaining keeps order anyway.
  let queue = Promise.resolve();
  process.on('message', (message: ToWorker) => {
    queue = queue
      .then(() => worker.answer(message))
      .then((reply) => {
        if (reply === undefined) return;
        send(reply);
        if (reply.type === 'done') process.disconnect();
      })
      .catch(fail);
  });
  send({ type: 'loaded' });
}

function fail(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.exitCode = 1;
  if (process.send === undefined || !process.connected) {
    process.stderr.write(`${text}\n`);
    return;
  }
  send({ type: 'failed', error: text });
  process.disconnect();
}

main().catch(fail);
