// MOVING handoffs meeting other mechanisms (issue 14, PROTOCOL.md §5 item 2): a transaction whose
// EXEC is in flight on the old connection, an announced endpoint that is black-holed (the test
// kit's fault proxy), and a half-open circuit whose probe waits for the handoff (seed 000: admitted
// on the replacement, right before its write). The fake server sends the MOVING: Redis 7.0 cannot send maintenance
// notifications.
import { describe, expect, it } from 'vitest';
import { RespireCircuitOpenError, RespireClient, type RespireOptions } from '../../src/index.js';
import type { FakeServer } from '../kit/fake-server.js';
import { startFaultProxy } from '../kit/fault-proxy.js';
import { waitUntil } from '../kit/wait-until.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from './maintenance-support.js';
import { outcome } from './support.js';

const kit = useMaintenanceFakes();

async function open(from: FakeServer, options: Partial<RespireOptions> = {}): Promise<RespireClient> {
  return kit.track(
    await RespireClient.connect({
      endpoints: [{ host: from.host, port: from.port }],
      reconnect: () => 5,
      ...options,
    }),
  );
}

function ranOn(server: FakeServer, key: string): boolean {
  return server.commands.some(([name, arg]) => name === 'GET' && arg === key);
}

describe('a MOVING handoff meeting other mechanisms (fake server)', () => {
  it('lets a transaction in flight finish on the old connection; later commands go to the new one', async () => {
    // EXEC is left unanswered until the test writes its reply.
    const from = await kit.fake((args) => {
      const name = args[0]!.toUpperCase();
      if (name === 'MULTI') return '+OK\r\n';
      if (name === 'SET') return '+QUEUED\r\n';
      if (name === 'EXEC') return undefined;
      return maintenanceAnswer(args);
    });
    const to = await kit.fake();
    const client = await open(from);
    const tx = client.multi();
    tx.set('a', '1');
    const committed = tx.exec();
    await waitUntil(
      'EXEC on the wire',
      async () => (from.commands.some(([name]) => name === 'EXEC') ? true : 'no'),
      {
        timeoutMs: 5_000,
        intervalMs: 5,
      },
    );
    const old = await from.connection(0);
    await old.send(push('MOVING', 1, 30, `${to.host}:${to.port}`));
    await to.connection(0);
    const after = client.get('after');
    await old.send('*1\r\n+OK\r\n');
    expect(await committed).toEqual(['OK']);
    expect(await after).toBe('after');
    expect(ranOn(to, 'after')).toBe(true);
    expect(ranOn(from, 'after')).toBe(false);
  });

  it('carries on with the old connection when the announced endpoint is black-holed', async () => {
    const from = await kit.fake();
    const to = await kit.fake();
    const proxy = await startFaultProxy({ target: { host: to.host, port: to.port }, mode: 'blackhole' });
    try {
      const client = await open(from, { connectTimeout: 300, acquireTimeout: 10_000 });
      await (await from.connection(0)).send(push('MOVING', 1, 30, `127.0.0.1:${proxy.port}`));
      await proxy.waitForConnectionsAccepted(1);
      // Waits for the handoff, which gives up at the connect timeout, then goes out on the old connection.
      expect(await client.get('during')).toBe('during');
      expect((await from.connection(0)).commands.some(([, key]) => key === 'during')).toBe(true);
      // The black-holed endpoint is forgotten: a reconnection goes to the configured endpoint.
      (await from.connection(0)).socket.destroy();
      await from.connection(1);
      expect(await client.get('after')).toBe('after');
      expect((await from.connection(1)).commands.some(([, key]) => key === 'after')).toBe(true);
      expect(proxy.connections).toBeLessThanOrEqual(1);
    } finally {
      await proxy.stop();
    }
  });

  it('admits a half-open probe that waited for the handoff on the replacement', async () => {
    const from = await kit.fake();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const to = await kit.fake(undefined, (index) => (index === 0 ? [{ waitFor: held }] : []));
    // Real time and timers; `skew` jumps past the open duration.
    const clock = { skew: 0, now: () => performance.now() + clock.skew };
    const client = await open(from, {
      clock,
      circuitBreaker: { minimumFailureCount: 1, failureRateThreshold: 0.5, openDuration: 60_000 },
    });
    // One reply deadline missed opens the circuit; the late reply then leaves the connection idle.
    await expect(client.get('silent:1', { timeout: 50 })).rejects.toThrow();
    expect(client.circuit?.state).toBe('open');
    const old = await from.connection(0);
    await old.send('$8\r\nsilent:1\r\n');
    clock.skew += 61_000;
    await old.send(push('MOVING', 1, 30, `${to.host}:${to.port}`));
    await to.connection(0);
    const probe = client.get('probe');
    const second = outcome(client.get('second'));
    release();
    expect(await probe).toBe('probe');
    expect(ranOn(to, 'probe')).toBe(true);
    // One probe slot: the other command was checked at its write too, and rejected.
    expect((await second).error).toBeInstanceOf(RespireCircuitOpenError);
    expect(client.circuit?.state).toBe('closed');
    expect(ranOn(from, 'probe') || ranOn(from, 'second')).toBe(false);
  });
});
