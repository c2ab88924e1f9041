// Maintenance notifications (issue 14, PROTOCOL.md §5). The opt-in is tested against a real Redis
// 7.0, which refuses it; the notifications themselves only through the test kit's fake server,
// because no Redis a test can run here sends them (Redis Cloud and Redis Software only): relaxed
// deadlines and their distinct errors, and MOVING handoffs, one in the middle of a pipeline of
// 10,000 commands with every reply matched to its command.
import { describe, expect, it } from 'vitest';
import {
  RespireClient,
  type RespireConfigurationError,
  RespireConnectionError,
  RespireMaintenanceTimeoutError,
  type RespireOptions,
  RespireTimeoutError,
} from '../../src/index.js';
import type { FakeServer } from '../kit/fake-server.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';
import { maintenanceAnswer as answer, push, useMaintenanceFakes } from './maintenance-support.js';
import { outcome, outcomeWithin, recordWritesTo, useTestClients } from './support.js';

const server = useRedisServer();
const kit = useTestClients(server);

const fakes = useMaintenanceFakes();

function fake(): Promise<FakeServer> {
  return fakes.fake();
}

/**
 * A replacement server whose first connection's handshake waits until `release()`, so that a
 * handoff to it is still under way meanwhile.
 */
async function heldFake(
  fallback: (args: string[]) => string | undefined,
): Promise<{ to: FakeServer; release: () => void }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const to = await fakes.fake(fallback, (index) => (index === 0 ? [{ waitFor: held }] : []));
  return { to, release };
}

async function open(target: FakeServer, options: Partial<RespireOptions> = {}): Promise<RespireClient> {
  const client = await RespireClient.connect({
    endpoints: [{ host: target.host, port: target.port }],
    reconnect: () => 5,
    ...options,
  });
  return fakes.track(client);
}

/** Sends `frame` on the client's first connection; resolves once the client has read it (a PING after it answered). */
async function notify(target: FakeServer, client: RespireClient, frame: string, index = 0): Promise<void> {
  await (await target.connection(index)).send(frame);
  await client.ping();
}

describe('maintenance opt-in against Redis 7.0', () => {
  it("auto (the default) asks after HELLO 3 and tolerates the server's refusal", async () => {
    const writes = recordWritesTo(server.port);
    const client = await kit.open();
    expect(await client.ping()).toBe('PONG');
    expect(Buffer.concat(writes).toString()).toContain('MAINT_NOTIFICATIONS');
  });

  it('enabled fails the connection the server refuses it on', async () => {
    const failed = await outcome(kit.open({ maintenance: 'enabled' }));
    expect(failed.error).toBeInstanceOf(RespireConnectionError);
    expect((failed.error as Error).message).toMatch(/MAINT_NOTIFICATIONS.*maintenance: 'enabled'/);
  });

  it('disabled, and auto over RESP2, do not ask', async () => {
    const writes = recordWritesTo(server.port);
    await kit.open({ maintenance: 'disabled' });
    await kit.open({ protocol: 2 });
    expect(Buffer.concat(writes).toString()).not.toContain('MAINT_NOTIFICATIONS');
    const failed = await outcome(kit.open({ maintenance: 'enabled', protocol: 2 }));
    expect(failed.error).toBeInstanceOf(RespireConnectionError);
  });

  it('refuses an unknown mode and a bad relaxed timeout', async () => {
    const mode = await outcome(kit.open({ maintenance: 'on' as never }));
    expect((mode.error as RespireConfigurationError).option).toBe('maintenance');
    const relaxed = await outcome(kit.open({ maintenanceRelaxedTimeout: 0 }));
    expect((relaxed.error as RespireConfigurationError).option).toBe('maintenanceRelaxedTimeout');
  });
});

describe('maintenance windows (fake server)', () => {
  it('relaxes reply deadlines from MIGRATING to MIGRATED, with a distinct error inside the window', async () => {
    const target = await fake();
    const client = await open(target, { commandTimeout: 150, maintenanceRelaxedTimeout: 1_500 });
    await notify(target, client, push('MIGRATING', 1, 30, '1'));

    // Past its own 150 ms, still waiting: the window relaxed it to 1,500 ms. (The fake answers
    // `silent:` keys only when the test writes the reply, late, in order.)
    const slow = client.get('silent:1');
    expect(await outcomeWithin(slow, 600)).toBe('pending');
    await (await target.connection(0)).send('$8\r\nsilent:1\r\n');
    expect(await slow).toBe('silent:1');

    const stalled = await outcome(client.get('silent:2'));
    expect(stalled.error).toBeInstanceOf(RespireMaintenanceTimeoutError);
    expect((stalled.error as RespireMaintenanceTimeoutError).during).toBe('command');

    // The silent connection was replaced; the window, the endpoint's, holds on the new one.
    await target.connection(1);
    await notify(target, client, push('MIGRATED', 1, '1'), 1);
    const restored = await outcomeWithin(client.get('silent:3'), 1_000);
    expect(restored).not.toBe('pending');
    const error = (restored as { error?: unknown }).error;
    expect(error).toBeInstanceOf(RespireTimeoutError);
    expect(error).not.toBeInstanceOf(RespireMaintenanceTimeoutError);
  });
});

describe('MOVING handoffs (fake server)', () => {
  it('hands over in the middle of a pipeline of 10,000 commands, every reply matched to its command', async () => {
    const from = await fake();
    const to = await fake();
    const client = await open(from);
    const keys = Array.from({ length: 10_000 }, (_, i) => `key:${i}`);
    const replies: Promise<string | null>[] = [];
    let moved = false;
    for (let i = 0; i < keys.length; i++) {
      replies.push(client.get(keys[i]!));
      if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
      if (i === 3_000 && !moved) {
        moved = true;
        await (await from.connection(0)).send(push('MOVING', 1, 10, `${to.host}:${to.port}`));
      }
    }
    const values = await Promise.all(replies);
    expect(values).toEqual(keys);
    const gets = (fakeServer: FakeServer) =>
      fakeServer.commands.filter(([name]) => name === 'GET').map(([, key]) => key!);
    const onOld = gets(from);
    const onNew = gets(to);
    // Each command ran once, on one side, in order: the old connection took a prefix, the new one the rest.
    expect(onOld.length).toBeGreaterThan(0);
    expect(onNew.length).toBeGreaterThan(0);
    expect([...onOld, ...onNew]).toEqual(keys);
    // The replacement had the same handshake, and new commands keep going to it.
    expect(to.commands[0]![0]!.toUpperCase()).toBe('HELLO');
    expect(to.commands.some(([name, sub]) => name === 'CLIENT' && sub === 'MAINT_NOTIFICATIONS')).toBe(true);
    expect(await client.get('after')).toBe('after');
    expect(gets(to).at(-1)).toBe('after');
    expect(from.failures).toEqual([]);
    expect(to.failures).toEqual([]);
  });

  it('writes a transaction and a batch issued during the handoff whole on the replacement', async () => {
    const from = await fake();
    const { to, release } = await heldFake((args) => {
      const name = args[0]!.toUpperCase();
      if (name === 'MULTI') return '+OK\r\n';
      if (name === 'SET') return '+QUEUED\r\n';
      if (name === 'EXEC') return '*2\r\n+OK\r\n+OK\r\n';
      return answer(args);
    });
    const client = await open(from);
    await notify(from, client, push('MOVING', 4, 10, `${to.host}:${to.port}`));
    const tx = client.multi();
    tx.set('a', '1');
    tx.set('b', '2');
    const committed = tx.exec();
    const batch = client.batch();
    const entries = Array.from({ length: 100 }, (_, i) => batch.get(`batch:${i}`));
    const executed = batch.execute();
    release();
    expect(await committed).toEqual(['OK', 'OK']);
    await executed;
    expect(await Promise.all(entries)).toEqual(Array.from({ length: 100 }, (_, i) => `batch:${i}`));
    const names = (fakeServer: FakeServer) => fakeServer.commands.map(([name]) => name!.toUpperCase());
    expect(names(from)).not.toContain('MULTI');
    expect(names(to).filter((name) => ['MULTI', 'SET', 'EXEC'].includes(name))).toEqual([
      'MULTI',
      'SET',
      'SET',
      'EXEC',
    ]);
    expect(from.commands.some(([, key]) => key?.startsWith('batch:'))).toBe(false);
    expect(to.commands.filter(([, key]) => key?.startsWith('batch:'))).toHaveLength(100);
  });

  it('keeps the acquire deadline of commands waiting for the handoff', async () => {
    const from = await fake();
    const { to, release } = await heldFake(answer);
    const client = await open(from, { acquireTimeout: 200 });
    await notify(from, client, push('MOVING', 5, 10, `${to.host}:${to.port}`));
    const waiting = await outcomeWithin(client.get('late'), 2_000);
    release();
    expect(waiting).not.toBe('pending');
    const error = (waiting as { error?: unknown }).error;
    expect(error).toBeInstanceOf(RespireTimeoutError);
    expect((error as RespireTimeoutError).phase).toBe('acquire');
    expect((error as RespireTimeoutError).written).toBe(false);
    expect(await client.get('next')).toBe('next');
  });

  it('with no endpoint, reconnects to the configured one after half the announced time', async () => {
    const target = await fake();
    const client = await open(target);
    const announced = performance.now();
    await (await target.connection(0)).send(push('MOVING', 2, 1, null));
    await target.connection(1);
    // Half of the announced second, less the timer's rounding.
    expect(performance.now() - announced).toBeGreaterThanOrEqual(490);
    expect(await client.get('later')).toBe('later');
    const second = await target.connection(1);
    expect(second.commands.some(([name, key]) => name === 'GET' && key === 'later')).toBe(true);
  });

  it('keeps writing on the old connection when the replacement cannot be opened', async () => {
    const target = await fake();
    const client = await open(target);
    await notify(target, client, push('MOVING', 3, 10, '127.0.0.1:1'));
    expect(await client.get('still')).toBe('still');
    expect((await target.connection(0)).commands.some(([, key]) => key === 'still')).toBe(true);
  });
});

describe('SMIGRATED on a Cluster node (fake server)', () => {
  it('refreshes the slot map', async () => {
    let slotReads = 0;
    const node = await fakes.fake((args) => {
      const command = args.slice(0, 2).join(' ').toUpperCase();
      if (command === 'CLUSTER SLOTS') {
        slotReads++;
        const port = String(node.port);
        return `*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$9\r\n127.0.0.1\r\n:${port}\r\n`;
      }
      if (command === 'CLUSTER SHARDS') return "-ERR unknown subcommand 'SHARDS'\r\n";
      return answer(args);
    });
    const client = await open(node, { useCluster: true });
    expect(await client.get('k')).toBe('k');
    const before = slotReads;
    const data = node.commands.findIndex(([name, key]) => name === 'GET' && key === 'k');
    expect(data).toBeGreaterThanOrEqual(0);
    // The data connection is the one that carried GET k; the server announces a slot migration on it.
    const connections = await Promise.all(
      Array.from({ length: node.connectionCount }, (_, i) => node.connection(i)),
    );
    const carrier = connections.find((connection) => connection.commands.some(([name]) => name === 'GET'))!;
    await carrier.send(push('SMIGRATED', 12, '127.0.0.1:1,127.0.0.1:2,0-100'));
    await waitUntil('a slot map refresh', async () => (slotReads > before ? true : `${slotReads} reads`), {
      timeoutMs: 10_000,
    });
  });
});
