// redis.watch(keys) against a real server, RESP3 and RESP2 (API.md "Batches, transactions, views"):
// optimistic locking on a dedicated connection, null on a conflict, and every way a session ends
// leaves its pooled connection without a WATCH, or closes it when it broke.
import { describe, expect, it } from 'vitest';
import { type RespireClient, RespireConnectionError, RespireServerError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { PROTOCOLS, useTestClients } from './support.js';

const server = useRedisServer();

describe.each(PROTOCOLS)('watch over RESP%i', (protocol) => {
  const { open, proxied } = useTestClients(server, {
    protocol,
    // One dedicated connection, so a later session provably reuses the one before it.
    maxDedicatedConnections: 1,
  });

  const key = (name: string) => `watch:${protocol}:${name}`;

  /**
   * The next session gets connection `id` back, and a change to `watched` by another client no
   * longer aborts a transaction there: the ended session left no WATCH behind.
   */
  async function expectReusedWithoutWatch(redis: RespireClient, id: unknown, watched: string) {
    const other = await open();
    const session = await redis.watch(key('probe'));
    expect(await session.send(['CLIENT', 'ID'])).toBe(id);
    await other.set(watched, 'changed elsewhere');
    const tx = session.multi();
    tx.set(key('probe'), '1');
    expect(await tx.exec()).toEqual(['OK']);
  }

  it('commits when no watched key changed, reading on the session connection first', async () => {
    const redis = await open();
    await redis.set(key('balance'), '5');
    const session = await redis.watch([key('balance')]);
    expect(session.active).toBe(true);
    const id = await session.send(['CLIENT', 'ID']);
    expect(id).not.toBe(await redis.send(['CLIENT', 'ID']));
    const balance = Number(await session.get(key('balance')));
    const tx = session.multi();
    const set = tx.set(key('balance'), String(balance + 5));
    const get = tx.get(key('balance'));
    expect(await tx.exec()).toEqual(['OK', '10']);
    expect(await Promise.all([set, get])).toEqual(['OK', '10']);
    // The transaction ended the session; its connection went back to the pool.
    expect(session.active).toBe(false);
    await expect(session.get(key('balance'))).rejects.toBeInstanceOf(TypeError);
    expect(() => session.multi()).toThrow(TypeError);
    await expectReusedWithoutWatch(redis, id, key('balance'));
  });

  it('resolves null when another client changed a watched key, and runs nothing', async () => {
    const redis = await open();
    const other = await open();
    const session = await redis.watch(key('contested'));
    const id = await session.send(['CLIENT', 'ID']);
    await other.set(key('contested'), 'theirs');
    const tx = session.multi();
    const entry = tx.set(key('contested'), 'mine');
    expect(await tx.exec()).toBeNull();
    await expect(entry).rejects.toThrow(/watched key changed/);
    expect(await redis.get(key('contested'))).toBe('theirs');
    expect(session.active).toBe(false);
    await expectReusedWithoutWatch(redis, id, key('contested'));
  });

  it.each(['unwatch', 'release', 'dispose'] as const)(
    '%s() ends the session without a WATCH left',
    async (how) => {
      const redis = await open();
      const session = await redis.watch([key(how), key(`${how}:2`)]);
      const id = await session.send(['CLIENT', 'ID']);
      if (how === 'unwatch') await session.unwatch();
      else if (how === 'release') await session.release();
      else await session[Symbol.asyncDispose]();
      expect(session.active).toBe(false);
      await session.release();
      await expect(session.ping()).rejects.toBeInstanceOf(TypeError);
      await expectReusedWithoutWatch(redis, id, key(how));
    },
  );

  it('ends the session on EXECABORT, with the queue-time error as cause', async () => {
    const redis = await open();
    const session = await redis.watch(key('aborted'));
    const id = await session.send(['CLIENT', 'ID']);
    const tx = session.multi();
    tx.send(['SET', key('aborted')]);
    const error = await tx.exec().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toMatchObject({ code: 'EXECABORT' });
    expect((error as Error).cause).toBeInstanceOf(RespireServerError);
    expect(session.active).toBe(false);
    await expectReusedWithoutWatch(redis, id, key('aborted'));
  });

  it('ends the session on an empty transaction, which sends nothing and resolves []', async () => {
    const redis = await open();
    const session = await redis.watch(key('empty'));
    const id = await session.send(['CLIENT', 'ID']);
    expect(await session.multi().exec()).toEqual([]);
    expect(session.active).toBe(false);
    await expectReusedWithoutWatch(redis, id, key('empty'));
  });

  it('discards a session whose connection broke instead of reusing it', async () => {
    const redis = await open();
    const session = await redis.watch(key('broken'));
    const id = await session.send(['CLIENT', 'ID']);
    expect(await redis.send(['CLIENT', 'KILL', 'ID', String(id)])).toBe(1);
    await expect(session.get(key('broken'))).rejects.toBeInstanceOf(RespireConnectionError);
    await session.release();
    const next = await redis.watch(key('broken'));
    expect(await next.send(['CLIENT', 'ID'])).not.toBe(id);
    await next.release();
  });

  it('holds one dedicated connection per open session, bounded by maxDedicatedConnections', async () => {
    const redis = await open({ acquireTimeout: 50 });
    const session = await redis.watch(key('held'));
    await expect(redis.watch(key('waiting'))).rejects.toMatchObject({
      name: 'RespireTimeoutError',
      phase: 'acquire',
    });
    const waiting = redis.watch(key('waiting'));
    await session.release();
    const next = await waiting;
    expect(next.active).toBe(true);
    await next.release();
    await expect(redis.watch([])).rejects.toBeInstanceOf(TypeError);
  });

  it('close() of the client ends open sessions and closes their connections', async () => {
    const { proxy, client: redis } = await proxied();
    const session = await redis.watch(key('open'));
    await proxy.waitForConnections(2);
    await redis.close();
    expect(session.active).toBe(false);
    await proxy.waitForConnections(0, 2000);
    await expect(redis.watch(key('late'))).rejects.toMatchObject({
      name: 'RespireConnectionError',
      written: false,
    });
  });
});
