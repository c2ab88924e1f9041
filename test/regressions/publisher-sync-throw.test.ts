// The resilient publisher (examples/resilient-publisher/) takes any client with `xadd`, `eval` and
// `circuit` (`PublisherRedis`). When that client threw synchronously instead of returning a
// rejected promise (a wrapper's bug, a closed client of another library), two things broke:
// - the replayer had marked its batch in flight before calling `eval`, so after the throw it never
//   sent another batch: the spool was never replayed and `close()` waited forever;
// - `publish` threw instead of rejecting, and the call it had registered was spooled later by the
//   deadline timer, so a caller that retried after the throw made a duplicate.
// Redis itself cannot make the client throw synchronously, so the client here is a real one with a
// wrapper that throws once.
import { afterEach, describe, expect, it } from 'vitest';
import { readUniqueEvents } from '../../examples/resilient-publisher/consumer.js';
import type { LogEntry } from '../../examples/resilient-publisher/monitor.js';
import { type PublisherRedis, ResilientPublisher } from '../../examples/resilient-publisher/publisher.js';
import { encodeEvent } from '../../examples/resilient-publisher/record-codec.js';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import type { RespireClient } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { Progress } from '../examples/resilient-publisher-kit.js';
import { useScratchDirs } from '../examples/resilient-publisher-spool-kit.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const { open } = useTestClients(useRedisServer());
const scratch = useScratchDirs();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `client`, except that the first call of `method` throws synchronously. */
function throwingOnce(client: RespireClient, method: 'eval' | 'xadd'): PublisherRedis {
  let thrown = false;
  const wrap =
    <A extends unknown[], R>(name: string, call: (...args: A) => R) =>
    (...args: A): R => {
      if (name === method && !thrown) {
        thrown = true;
        throw new TypeError(`${name} is broken`);
      }
      return call(...args);
    };
  return {
    xadd: wrap('xadd', client.xadd.bind(client)),
    eval: wrap('eval', client.eval.bind(client)),
    circuit: client.circuit,
  } as PublisherRedis;
}

function publisherOn(redis: PublisherRedis, stream: string, directory: string) {
  const logs: LogEntry[] = [];
  const progress = new Progress();
  const publisher = new ResilientPublisher(redis, {
    stream,
    deadlineMs: 200,
    spool: { directory, fsync: 'never' },
    replayRetryMs: 5,
    logger: (entry) => {
      logs.push(entry);
      progress.notify();
    },
  });
  cleanups.push(() => publisher.close());
  return { publisher, logs, progress };
}

describe('a client that throws synchronously', () => {
  it('from eval: the replayer logs it, retries and drains the spool; close does not hang', async () => {
    const directory = scratch();
    const filler = Spool.open({ directory, fsync: 'never' });
    for (let i = 0; i < 3; i++) filler.append(encodeEvent(`k${i}`, `data ${i}`));
    filler.close();
    const client = await open();
    const { publisher, logs, progress } = publisherOn(throwingOnce(client, 'eval'), 'sync:eval', directory);
    await progress.until('the spool drained', () => logs.some((entry) => entry.event === 'spool-drained'));
    expect(publisher.stats).toMatchObject({ replayed: 3, spooledEvents: 0 });
    expect(logs.find((entry) => entry.event === 'replay-failed')).toMatchObject({
      error: 'eval is broken',
    });
    const keys = (await readUniqueEvents(client, 'sync:eval')).events.map((event) => event.key);
    expect(keys).toEqual(['k0', 'k1', 'k2']);
    await publisher.close();
  });

  it('from xadd: publish rejects with the error and leaves nothing behind to replay', async () => {
    const client = await open();
    const { publisher } = publisherOn(throwingOnce(client, 'xadd'), 'sync:xadd', scratch());
    let result: Promise<unknown> | undefined;
    expect(() => {
      result = publisher.publish('first', { key: 'k-first' });
    }).not.toThrow();
    await expect(result).rejects.toThrow('xadd is broken');
    await expect(publisher.publish('second', { key: 'k-second' })).resolves.toBe('delivered');
    expect(publisher.stats).toMatchObject({ published: 2, delivered: 1, spooled: 0, spooledEvents: 0 });
    const keys = (await readUniqueEvents(client, 'sync:xadd')).events.map((event) => event.key);
    expect(keys).toEqual(['k-second']);
  });
});
