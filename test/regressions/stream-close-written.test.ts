// A streamed value the client's close() (or destroy()) ends (streams/raw-exchange.ts): the GET or
// the SET's first bytes were on the wire, yet it failed with "the client is closed", written:
// false, the error of a command that never left, which says retrying cannot repeat anything. An
// upload whose last byte went out may well have been stored. Like a command in flight that close()
// stops waiting for (transport/connection.ts `closeOwed`), it now fails written: true, naming the
// client's close. Real server; close() waits at most commandTimeout for both.
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);
const BIG = 8 * 1024 * 1024;

function expectClosedWritten(error: unknown): void {
  expect(error).toBeInstanceOf(RespireConnectionError);
  expect((error as RespireConnectionError).message).toMatch(/the client closed the connection/);
  expect((error as RespireConnectionError).written).toBe(true);
}

describe('close() during a streamed value', () => {
  it('fails a stream nobody reads as written', async () => {
    const redis = await open({ commandTimeout: 300 });
    await redis.setFromStream('closing:big', [Buffer.alloc(BIG, 1)], { length: BIG });
    const stream = redis.getStream('closing:big', { highWaterMark: 1024 });
    const failed = new Promise<unknown>((resolve) => stream.once('error', resolve));
    await new Promise((resolve) => stream.once('readable', resolve));
    await redis.close();
    expectClosedWritten(await failed);
  });

  it('fails an upload whose source is still producing as written', async () => {
    const redis = await open({ commandTimeout: 300 });
    const stop = new AbortController();
    let firstSent!: () => void;
    const started = new Promise<void>((resolve) => {
      firstSent = resolve;
    });
    async function* slow(): AsyncGenerator<Buffer> {
      yield Buffer.from('abc');
      firstSent();
      await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
    }
    const upload = outcome(redis.setFromStream('closing:up', slow(), { length: 10 }));
    await started;
    await redis.close();
    const { error } = await upload;
    stop.abort();
    expectClosedWritten(error);
  });
});
