// The Subscriber below RespireClient, against real redis-servers in RESP3 and RESP2: listener
// errors, push kinds it does not know, SUNSUBSCRIBE sent by the server when a slot moves (a single
// cluster-enabled node deleting the slot), taking back a refused subscribe, and a refused restore.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveOptions } from '../../src/client/options.js';
import {
  type PubSubListener,
  Subscriber,
  type SubscriberOptions,
} from '../../src/client/pubsub/subscriber.js';
import { RespireClient, type RespireOptions, RespireServerError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const subscribers: Subscriber[] = [];
const clients: RespireClient[] = [];

afterEach(async () => {
  await Promise.all([...subscribers.splice(0), ...clients.splice(0)].map((closable) => closable.close()));
});

function subscriber(
  options: RespireOptions,
  extra: Partial<SubscriberOptions> & { onError?: (error: unknown) => void } = {},
): Subscriber {
  const resolved = resolveOptions(options);
  const { onError, ...rest } = extra;
  const created = new Subscriber({ channel: resolved, commandTimeout: 5000, ...rest });
  if (onError !== undefined) created.onError((error) => onError(error));
  subscribers.push(created);
  return created;
}

async function client(options: RespireOptions): Promise<RespireClient> {
  const created = await RespireClient.connect(options);
  clients.push(created);
  return created;
}

/** A listener and a promise of its next call. */
function nextCall(): { listener: PubSubListener; called: Promise<unknown[]> } {
  let resolve!: (args: unknown[]) => void;
  const called = new Promise<unknown[]>((r) => (resolve = r));
  return { listener: (...args) => resolve(args), called };
}

describe.each([3, 2] as const)('Subscriber over RESP%i', (protocol) => {
  const server = useRedisServer({
    args: ['--cluster-enabled', 'yes'],
    aclUsers: [{ name: 'limited', password: 'secret', rules: ['~*', '&allowed:*', '+@all'] }],
  });
  const endpoints = (): string[] => [`${server.host}:${server.port}`];

  it('keeps delivering to the other listeners when one throws, and reports the error', async () => {
    const errors: unknown[] = [];
    const sub = subscriber(
      { endpoints: endpoints(), protocol },
      { onError: (error: unknown) => errors.push(error) },
    );
    const failure = new Error('listener bug');
    const after = nextCall();
    await sub.subscribe('channel', 'errors', () => {
      throw failure;
    });
    await sub.subscribe('channel', 'errors', after.listener);
    const redis = await client({ endpoints: endpoints(), protocol });
    await redis.publish('errors', 'm');
    expect(await after.called).toEqual(['m', 'errors', undefined]);
    expect(errors).toEqual([failure]);
  });

  it('rethrows a listener error from a microtask when no onError is given', async () => {
    const sub = subscriber({ endpoints: endpoints(), protocol });
    const failure = new Error('unhandled listener bug');
    await sub.subscribe('channel', 'boom', () => {
      throw failure;
    });
    // Only around the delivery: the pipeline itself schedules its writes with queueMicrotask.
    const deferred: (() => void)[] = [];
    const spy = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => deferred.push(task));
    try {
      sub.handlePush(['message', 'nobody', 'x']); // no entry: nothing runs
      sub.handlePush(['message', 'boom', 'x']);
    } finally {
      spy.mockRestore();
    }
    expect(deferred).toHaveLength(1);
    expect(() => deferred[0]!()).toThrow(failure);
  });

  it('ignores push kinds it does not know and malformed frames', async () => {
    const errors: unknown[] = [];
    const sub = subscriber(
      { endpoints: endpoints(), protocol },
      { onError: (error: unknown) => errors.push(error) },
    );
    const calls: unknown[] = [];
    await sub.subscribe('channel', 'quiet', (...args) => calls.push(args));
    sub.handlePush(['invalidate', ['quiet']]);
    sub.handlePush(['tracking-redir-broken', 7]);
    sub.handlePush([]);
    sub.handlePush([42, 'quiet', 'x']);
    sub.handlePush(['message', 'quiet', 42]);
    sub.handlePush(['message', null, 'x']);
    sub.handlePush([Buffer.from('MESSAGE'), Buffer.from('quiet'), 'shouted']);
    expect(calls).toEqual([['shouted', 'quiet', undefined]]);
    expect(errors).toEqual([]);
  });

  it('forgets a shard channel the server drops when its slot goes away, and tells the hook', async () => {
    const admin = await client({ endpoints: endpoints(), protocol });
    await admin.send(['CLUSTER', 'ADDSLOTSRANGE', '0', '16383']);
    const dropped: [string, PubSubListener[]][] = [];
    let noticeDrop!: () => void;
    const droppedOnce = new Promise<void>((resolve) => (noticeDrop = resolve));
    const sub = subscriber(
      { endpoints: endpoints(), protocol },
      {
        onShardChannelDropped: (channel, listeners) => {
          dropped.push([channel, [...listeners]]);
          noticeDrop();
        },
      },
    );
    const listener: PubSubListener = () => {};
    // In Cluster one SSUBSCRIBE may only name channels of one slot.
    for (const channel of ['moving', 'staying', 'leaving']) await sub.subscribe('shard', channel, listener);
    // Our own SUNSUBSCRIBE is confirmed, not reported as a drop.
    await sub.unsubscribe('shard', 'leaving');
    const slot = await admin.send(['CLUSTER', 'KEYSLOT', 'moving']);
    expect(await admin.send(['CLUSTER', 'KEYSLOT', 'staying'])).not.toBe(slot);
    try {
      await admin.send(['CLUSTER', 'DELSLOTS', String(slot)]);
      await droppedOnce;
      expect(dropped).toEqual([['moving', [listener]]]);
      expect(sub.subscriptions('shard')).toEqual(['staying']);
      const staying = nextCall();
      await sub.subscribe('shard', 'staying', staying.listener);
      expect(await admin.spublish('staying', 'still here')).toBe(1);
      expect(await staying.called).toEqual(['still here', 'staying', undefined]);
    } finally {
      await admin.send(['CLUSTER', 'RESET', 'HARD']);
    }
  });

  it('takes the listener back when the server refuses the subscribe', async () => {
    const sub = subscriber({ endpoints: endpoints(), protocol, username: 'limited', password: 'secret' });
    const listener: PubSubListener = () => {};
    await expect(sub.subscribe('channel', ['allowed:a', 'forbidden'], listener)).rejects.toMatchObject({
      name: 'RespireServerError',
      code: 'NOPERM',
    });
    expect(sub.subscriptions('channel')).toEqual([]);
    const allowed = nextCall();
    await sub.subscribe('channel', 'allowed:a', allowed.listener);
    const redis = await client({ endpoints: endpoints(), protocol });
    expect(await redis.publish('allowed:a', 'ok')).toBe(1);
    expect(await allowed.called).toEqual(['ok', 'allowed:a', undefined]);
  });

  it('reports and forgets a subscription the server refuses to restore after a reconnect', async () => {
    const admin = await client({ endpoints: endpoints(), protocol });
    await admin.send(['ACL', 'SETUSER', 'restorer', 'reset', 'on', '>pw', '~*', '&*', '+@all']);
    let noticeError!: (error: unknown) => void;
    const reported = new Promise<unknown>((resolve) => (noticeError = resolve));
    const sub = subscriber(
      { endpoints: endpoints(), protocol, username: 'restorer', password: 'pw', reconnect: () => 0 },
      { onError: (error: unknown) => noticeError(error) },
    );
    await sub.subscribe('channel', 'revoked', () => {});
    // Redis disconnects clients subscribed to channels their user may no longer use.
    await admin.send(['ACL', 'SETUSER', 'restorer', 'resetchannels', '&other']);
    const error = await reported;
    expect(error).toBeInstanceOf(RespireServerError);
    expect(error).toMatchObject({ code: 'NOPERM' });
    expect(sub.subscriptions('channel')).toEqual([]);
  });

  it('rejects and keeps no state when the connection cannot be opened', async () => {
    const sub = subscriber({ endpoints: ['127.0.0.1:1'], protocol, connectTimeout: 1000 });
    await expect(sub.subscribe('pattern', 'p.*', () => {})).rejects.toMatchObject({
      name: 'RespireConnectionError',
    });
    expect(sub.subscriptions('pattern')).toEqual([]);
    await sub.unsubscribe('pattern');
  });
});
