// Regression (issue 19 #7, #8, #9): defineScript's EVALSHA→EVAL fallback.
// #7: inside multi() or batch() the fallback called back into a transaction or batch that had
//     already run, so a script the server had not cached never ran.
// #8: with fireAndForget no reply is read, so the NOSCRIPT was never seen: nothing ran.
// #9: a script whose own error reply begins with NOSCRIPT was taken for the server's NOSCRIPT and
//     sent again with EVAL: it ran twice.
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const clients = useTestClients(server);

// Counts its runs in KEYS[1], so a second run shows.
const COUNTING = "return redis.call('INCR', KEYS[1])";
// Counts its run, then fails with an error reply of its own that begins with NOSCRIPT.
const OWN_NOSCRIPT = "redis.call('INCR', KEYS[1]); return redis.error_reply('NOSCRIPT mine')";

describe.each([3, 2] as const)('scripts the server has not cached, RESP%i', (protocol) => {
  it('run once inside multi()', async () => {
    const client = await clients.open({ protocol });
    await client.scriptFlush();
    await client.del('script:multi');
    const tx = client.multi();
    const run = tx.defineScript(COUNTING).run(['script:multi']);
    const results = await tx.exec();
    expect(await run).toBe(1);
    expect(results).toEqual([1]);
    expect(await client.get('script:multi')).toBe('1');
  });

  it('run once inside a WATCH session transaction', async () => {
    const client = await clients.open({ protocol });
    await client.scriptFlush();
    await client.del('script:watched');
    const session = await client.watch('script:watched');
    const tx = session.multi();
    const run = tx.defineScript(COUNTING).run(['script:watched']);
    expect(await tx.exec()).toEqual([1]);
    expect(await run).toBe(1);
    expect(await client.get('script:watched')).toBe('1');
  });

  it('run once inside batch()', async () => {
    const client = await clients.open({ protocol });
    await client.scriptFlush();
    await client.del('script:batch');
    const batch = client.batch();
    const run = batch.defineScript(COUNTING).run(['script:batch']);
    expect(await batch.execute()).toEqual([1]);
    expect(await run).toBe(1);
    expect(await client.get('script:batch')).toBe('1');
  });

  it('run with fireAndForget', async () => {
    const client = await clients.open({ protocol });
    await client.scriptFlush();
    await client.del('script:ff');
    const script = client.defineScript(COUNTING);
    expect(await script.run(['script:ff'], [], { fireAndForget: true })).toBeUndefined();
    // The pipeline keeps order: the GET is answered after the script ran.
    expect(await client.get('script:ff')).toBe('1');
  });
});

describe.each([3, 2] as const)('a script failing with its own NOSCRIPT error, RESP%i', (protocol) => {
  it('runs once and its error reaches the caller', async () => {
    const client = await clients.open({ protocol });
    await client.del('script:own');
    const script = client.defineScript(OWN_NOSCRIPT);
    await client.scriptLoad(OWN_NOSCRIPT);
    const error = await script.run(['script:own']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RespireServerError);
    expect(error).toMatchObject({ code: 'NOSCRIPT', message: 'NOSCRIPT mine' });
    expect(await client.get('script:own')).toBe('1');
  });

  it('still falls back once when the server has not cached it', async () => {
    const client = await clients.open({ protocol });
    await client.scriptFlush();
    await client.del('script:own2');
    const error = await client
      .defineScript(OWN_NOSCRIPT)
      .run(['script:own2'])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOSCRIPT', message: 'NOSCRIPT mine' });
    expect(await client.get('script:own2')).toBe('1');
  });
});
