// Pub/sub through RespireClient against a real redis-server, RESP3 and RESP2: round trips, patterns,
// shard channels, several listeners, unsubscribe semantics, and restoring after the server kills
// the subscriber connection.
import { once } from 'node:events';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { PubSubListener } from '../../src/client/pubsub/subscriber.js';
import type { RespireClient } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { useTestClients } from './support.js';

type Received = [message: string | Buffer, channel: string, pattern: string | undefined];

/** Collects what a listener hears; `until(n)` resolves once n messages arrived in all. */
class Inbox {
  readonly messages: Received[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  readonly listener: PubSubListener = (message, channel, pattern) => {
    this.messages.push([message, channel, pattern]);
    this.waiters = this.waiters.filter((waiter) => {
      if (this.messages.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  };

  until(count: number): Promise<void> {
    if (this.messages.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

describe.each([3, 2] as const)('pub/sub over RESP%i', (protocol) => {
  const server = useRedisServer();
  const { open: connect } = useTestClients(server, { protocol });

  it('delivers published messages to a channel listener', async () => {
    const redis = await connect();
    const inbox = new Inbox();
    await redis.subscribe(['news', 'sport'], inbox.listener);
    expect(await redis.publish('news', 'hello')).toBe(1);
    expect(await redis.publish('sport', 'goal')).toBe(1);
    await inbox.until(2);
    expect(inbox.messages).toEqual([
      ['hello', 'news', undefined],
      ['goal', 'sport', undefined],
    ]);
    // The shared pipeline is not in subscriber mode: ordinary commands still work.
    expect(await redis.set('after', '1')).toBe('OK');
  });

  it('delivers pattern messages with the matching pattern', async () => {
    const redis = await connect();
    const inbox = new Inbox();
    await redis.psubscribe('weather.*', inbox.listener);
    expect(await redis.publish('weather.oslo', 'snow')).toBe(1);
    expect(await redis.publish('traffic.oslo', 'jam')).toBe(0);
    await inbox.until(1);
    expect(inbox.messages).toEqual([['snow', 'weather.oslo', 'weather.*']]);
  });

  it('delivers shard channel messages', async () => {
    const redis = await connect();
    const inbox = new Inbox();
    await redis.ssubscribe('orders', inbox.listener);
    expect(await redis.spublish('orders', 'o-1')).toBe(1);
    await inbox.until(1);
    expect(inbox.messages).toEqual([['o-1', 'orders', undefined]]);
    await redis.sunsubscribe('orders');
    expect(await redis.spublish('orders', 'o-2')).toBe(0);
  });

  it('fans out to several listeners and unsubscribes from the server only when none is left', async () => {
    const redis = await connect();
    const admin = await connect();
    const first = new Inbox();
    const second = new Inbox();
    await Promise.all([redis.subscribe('room', first.listener), redis.subscribe('room', second.listener)]);
    expect(await admin.pubsubNumSub(['room'])).toEqual(new Map([['room', 1]]));
    await redis.publish('room', 'one');
    await Promise.all([first.until(1), second.until(1)]);

    await redis.unsubscribe('room', first.listener);
    expect(await admin.pubsubNumSub(['room'])).toEqual(new Map([['room', 1]]));
    expect(await redis.publish('room', 'two')).toBe(1);
    await second.until(2);
    // Both listeners sit on one connection, in order: had `first` still listened, it would have 'two'.
    expect(first.messages.map(([message]) => message)).toEqual(['one']);

    await redis.unsubscribe('room', second.listener);
    expect(await admin.pubsubNumSub(['room'])).toEqual(new Map([['room', 0]]));
    expect(await redis.publish('room', 'three')).toBe(0);
  });

  it('unsubscribes every channel and pattern when called without names', async () => {
    const redis = await connect();
    const admin = await connect();
    const inbox = new Inbox();
    await redis.subscribe(['a', 'b', 'c'], inbox.listener);
    await redis.psubscribe(['p.*', 'q.*'], inbox.listener);
    await redis.unsubscribe();
    await redis.punsubscribe();
    expect(await admin.pubsubNumSub(['a', 'b', 'c'])).toEqual(
      new Map([
        ['a', 0],
        ['b', 0],
        ['c', 0],
      ]),
    );
    expect(await admin.pubsubNumPat()).toBe(0);
    // Nothing left: these resolve without sending anything.
    await redis.unsubscribe();
    await redis.unsubscribe('never-subscribed');
  });

  it('keeps state consistent when subscribe and unsubscribe race in one tick', async () => {
    const redis = await connect();
    const admin = await connect();
    const inbox = new Inbox();
    await Promise.all([redis.subscribe('race', inbox.listener), redis.unsubscribe('race', inbox.listener)]);
    expect(await admin.pubsubNumSub(['race'])).toEqual(new Map([['race', 0]]));
    await Promise.all([redis.unsubscribe('race', inbox.listener), redis.subscribe('race', inbox.listener)]);
    expect(await admin.pubsubNumSub(['race'])).toEqual(new Map([['race', 1]]));
    expect(await redis.publish('race', 'x')).toBe(1);
    await inbox.until(1);
  });

  it('passes messages as Buffers with returnBuffers', async () => {
    const redis = await connect({ returnBuffers: true });
    const inbox = new Inbox();
    await redis.subscribe('bin', inbox.listener);
    await redis.publish('bin', Buffer.from([0, 255, 13, 10]));
    await inbox.until(1);
    const [message, channel] = inbox.messages[0]!;
    expect(Buffer.isBuffer(message)).toBe(true);
    expect([...(message as Buffer)]).toEqual([0, 255, 13, 10]);
    expect(channel).toBe('bin');
  });

  it('restores every subscription after the server kills the subscriber connection, before anything else', async () => {
    let noticeLoss!: () => void;
    const lost = new Promise<void>((resolve) => (noticeLoss = resolve));
    // Reconnect at once, so the waits below are a few round trips; the policy call marks the loss.
    const redis = await connect({
      clientName: `restore-${protocol}`,
      reconnect: () => {
        noticeLoss();
        return 0;
      },
    });
    const admin = await connect();
    const inbox = new Inbox();
    await redis.subscribe('r:channel', inbox.listener);
    await redis.psubscribe('r:pattern.*', inbox.listener);
    await redis.ssubscribe(['r:shard1', 'r:shard2'], inbox.listener);
    const before = await subscriberIds(admin, `restore-${protocol}`);
    expect(before).toHaveLength(1);
    const monitor = await Monitor.open(server.host, server.port);

    expect(await admin.send(['CLIENT', 'KILL', 'TYPE', 'pubsub'])).toBeGreaterThanOrEqual(1);
    await lost;
    // Queued while disconnected: must reach the new connection after the restored subscriptions.
    const late = redis.subscribe('r:late', inbox.listener);
    await late;
    const log = await monitor.until(/"SUBSCRIBE" "r:late"/);
    monitor.close();
    const restored = [
      /"SUBSCRIBE" "r:channel"/,
      /"PSUBSCRIBE" "r:pattern\.\*"/,
      /"SSUBSCRIBE" "r:shard1"/,
      /"SSUBSCRIBE" "r:shard2"/,
    ].map((pattern) => log.findIndex((line) => pattern.test(line)));
    const lateAt = log.findIndex((line) => line.includes('"r:late"'));
    for (const at of restored) expect(at).toBeGreaterThanOrEqual(0);
    expect(Math.max(...restored)).toBeLessThan(lateAt);

    expect(await admin.publish('r:channel', 'back')).toBe(1);
    expect(await admin.publish('r:pattern.x', 'back')).toBe(1);
    expect(await admin.spublish('r:shard2', 'back')).toBe(1);
    expect(await admin.publish('r:late', 'back')).toBe(1);
    await inbox.until(4);
    expect(inbox.messages).toEqual([
      ['back', 'r:channel', undefined],
      ['back', 'r:pattern.x', 'r:pattern.*'],
      ['back', 'r:shard2', undefined],
      ['back', 'r:late', undefined],
    ]);
    const after = await subscriberIds(admin, `restore-${protocol}`);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);
    // The restored subscriptions are ordinary ones: unsubscribing works as before.
    await redis.unsubscribe('r:channel');
    expect(await admin.publish('r:channel', 'gone')).toBe(0);
  });

  it('rejects subscribing after close and closes the subscriber connection', async () => {
    const redis = await connect({ clientName: 'closing' });
    const admin = await connect();
    await redis.subscribe('closing', () => {});
    await redis.close();
    expect(await subscriberIds(admin, 'closing')).toEqual([]);
    await expect(redis.subscribe('closing', () => {})).rejects.toMatchObject({
      name: 'RespireConnectionError',
      written: false,
    });
  });

  it('rejects bad arguments without sending anything', async () => {
    const redis = await connect();
    await expect(redis.subscribe([], () => {})).rejects.toBeInstanceOf(TypeError);
    await expect(redis.subscribe('x', 'nope' as unknown as PubSubListener)).rejects.toBeInstanceOf(TypeError);
  });
});

/** Ids of the connections in pub/sub mode named `name` (CLIENT LIST TYPE pubsub). */
async function subscriberIds(admin: RespireClient, name: string): Promise<string[]> {
  const list = String(await admin.send(['CLIENT', 'LIST', 'TYPE', 'pubsub']));
  return [...list.matchAll(/^id=(\d+) .*name=(\S*)/gm)].filter((m) => m[2] === name).map((m) => m[1]!);
}

/** A raw MONITOR connection: the server's log of every command, in execution order. */
class Monitor {
  private text = '';
  private waiter: (() => void) | undefined;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.text += chunk;
      this.waiter?.();
    });
  }

  static async open(host: string, port: number): Promise<Monitor> {
    const socket = net.connect({ host, port });
    await once(socket, 'connect');
    const monitor = new Monitor(socket);
    socket.write('MONITOR\r\n');
    await monitor.until(/^\+OK$/);
    return monitor;
  }

  /** Resolves with the lines so far once one matches `pattern`. */
  async until(pattern: RegExp): Promise<string[]> {
    for (;;) {
      const lines = this.text.split('\r\n');
      if (lines.some((line) => pattern.test(line))) return lines;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
