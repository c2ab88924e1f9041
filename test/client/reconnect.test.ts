// Connection loss against real servers (issue 3 "Pipeline", "Connection and handshake"): what was
// in flight fails with RespireConnectionError and is never replayed, what is issued while
// disconnected is written after the reconnect or fails unsent, and the reconnect and retry options.
import { describe, expect, it } from 'vitest';
import { RespireClient, RespireConnectionError, RespireTimeoutError } from '../../src/index.js';
import type { FaultProxy } from '../kit/fault-proxy.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { nextTurn, outcome, useTestClients, wireLength } from './support.js';

const server = useRedisServer();
const { open, proxied, startProxy, track } = useTestClients(server);

/** A reconnect policy that records its calls and lets a test wait for the n-th one. */
class ReconnectProbe {
  readonly calls: { attempt: number; cause: Error }[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  constructor(private readonly delay: (attempt: number) => number | false = () => 5) {}

  readonly policy = (attempt: number, cause: Error): number | false => {
    this.calls.push({ attempt, cause });
    this.waiters = this.waiters.filter((waiter) => {
      if (this.calls.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
    return this.delay(attempt);
  };

  /** Resolves once the policy has been asked `count` times in all. */
  called(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

/**
 * The endpoint goes away: its connection is dropped and every reconnect refused. Resolves once
 * the client has asked `probe` for its first delay, so it is disconnected from then on.
 */
async function dropAndRefuse(proxy: FaultProxy, probe: ReconnectProbe): Promise<void> {
  await proxy.setMode('refuse');
  await proxy.closeAllConnections();
  await probe.called(1);
}

describe('connection lost with commands in flight', () => {
  it('server killed: in-flight commands fail (written: true), nothing is replayed after restart', async () => {
    const probe = new ReconnectProbe();
    const redis = await open({ reconnect: probe.policy, acquireTimeout: 10_000, commandTimeout: 0 });
    const monitor = await open({ reconnect: () => 5, acquireTimeout: 10_000 });
    await redis.set('kill:before', 'x');
    // Frozen, the server leaves the INCRs unanswered; killed, it can never answer them.
    server.kill('SIGSTOP');
    const incrs = Array.from({ length: 50 }, () => outcome(redis.send(['INCR', 'kill:counter'])));
    await nextTurn();
    server.kill('SIGKILL');
    await server.waitForExit();
    for (const { error } of await Promise.all(incrs)) {
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect(error).toMatchObject({ written: true, endpoint: { host: server.host, port: server.port } });
    }
    await probe.called(1);
    expect(probe.calls[0]!.attempt).toBe(1);
    expect(probe.calls[0]!.cause).toBeInstanceOf(RespireConnectionError);
    // Issued while the server is gone: written after the reconnect.
    const whileDown = outcome(redis.set('kill:during', 'queued'));
    await probe.called(3);
    await server.restart();
    expect(await whileDown).toEqual({ value: 'OK' });
    // The restarted server kept no data; a replayed INCR would have set the counter.
    expect(await monitor.get('kill:counter')).toBeNull();
    expect(await monitor.get('kill:before')).toBeNull();
    expect(await monitor.get('kill:during')).toBe('queued');
    expect(await redis.send(['INCR', 'kill:counter'])).toBe(1);
  });

  it('reply cut mid-pipeline: the answered resolve, the rest fail, none replayed', async () => {
    const { proxy, client: redis } = await proxied({ reconnect: () => 5 });
    // Each INCR reply is `:n\r\n` (4 bytes for n < 10): deliver two replies and a half, then cut.
    await proxy.setMode('closeAfterReplyBytes', 10);
    const results = await Promise.all(
      Array.from({ length: 9 }, () => outcome(redis.send(['INCR', 'cut:n']))),
    );
    expect(results[0]).toEqual({ value: 1 });
    expect(results[1]).toEqual({ value: 2 });
    for (const { error } of results.slice(2)) {
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect(error).toMatchObject({ written: true });
    }
    expect(proxy.faultsFired).toBe(1);
    // The server ran what it received (at most 9); a replay after the reconnect would exceed it.
    const counter = Number(await redis.get('cut:n'));
    expect(counter).toBeGreaterThanOrEqual(2);
    expect(counter).toBeLessThanOrEqual(9);
    expect(await redis.send(['INCR', 'cut:n'])).toBe(counter + 1);
    expect(proxy.connectionsAccepted).toBe(2);
  });

  it('reset with commands held in a partition: they fail written, and are not resent', async () => {
    const { proxy, client: redis } = await proxied({ reconnect: () => 5 });
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const incr = outcome(redis.send(['INCR', 'reset:n']));
    const set = outcome(redis.set('reset:k', 'v'));
    await proxy.waitForClientBytes(
      before + wireLength(['INCR', 'reset:n']) + wireLength(['SET', 'reset:k', 'v']),
    );
    await proxy.setMode('reset');
    for (const { error } of [await incr, await set]) {
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect(error).toMatchObject({ written: true });
    }
    await proxy.setMode('pass');
    // The partition dropped them (the server never saw them) and the client did not resend them.
    expect(await redis.get('reset:n')).toBeNull();
    expect(await redis.get('reset:k')).toBeNull();
  });

  it('commands issued while disconnected fail unsent after acquireTimeout', async () => {
    const probe = new ReconnectProbe(() => 20);
    const { proxy, client: redis } = await proxied({ reconnect: probe.policy, acquireTimeout: 200 });
    await dropAndRefuse(proxy, probe);
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => outcome(redis.set(`down:${i}`, 'v'))),
    );
    for (const { error } of results) {
      expect(error).toBeInstanceOf(RespireConnectionError);
      expect(error).toMatchObject({ written: false });
    }
    // Fails fast, at the acquire deadline, not after the reconnect loop gives up.
    expect(performance.now() - started).toBeLessThan(5000);
    await proxy.setMode('pass');
    expect(await redis.echo('back')).toBe('back');
    const exists = await redis.send(['EXISTS', ...Array.from({ length: 20 }, (_, i) => `down:${i}`)]);
    expect(exists).toBe(0);
  });
});

describe('while disconnected', () => {
  it('a command aborted while it waits for the reconnect is never sent', async () => {
    const probe = new ReconnectProbe(() => 20);
    const { proxy, client: redis } = await proxied({ reconnect: probe.policy, acquireTimeout: 10_000 });
    await dropAndRefuse(proxy, probe);
    const controller = new AbortController();
    const reason = new Error('no longer needed');
    const aborted = outcome(redis.set('waiting:aborted', 'v', { signal: controller.signal }));
    const kept = outcome(redis.set('waiting:kept', 'v'));
    await probe.called(2);
    controller.abort(reason);
    expect(await aborted).toEqual({ error: reason });
    await proxy.setMode('pass');
    expect(await kept).toEqual({ value: 'OK' });
    expect(await redis.get('waiting:aborted')).toBeNull();
    expect(await redis.get('waiting:kept')).toBe('v');
  });

  it('a reconnect whose handshake is cut is retried, and queued commands then run', async () => {
    const probe = new ReconnectProbe(() => 5);
    const { proxy, client: redis } = await proxied({ reconnect: probe.policy, acquireTimeout: 10_000 });
    // The next connection gets 3 bytes of its HELLO reply and is cut (a one-shot fault).
    await proxy.setMode('closeAfterReplyBytes', 3);
    await proxy.closeAllConnections();
    await probe.called(1);
    const queued = outcome(redis.echo('queued'));
    await proxy.waitForFaults(1);
    expect(await queued).toEqual({ value: 'queued' });
    expect(probe.calls.length).toBeGreaterThanOrEqual(2);
    expect(probe.calls[1]!.cause).toBeInstanceOf(RespireConnectionError);
    expect(proxy.connectionsAccepted).toBeGreaterThanOrEqual(3);
  });
});

describe('reconnect option', () => {
  it('reconnect: false never reconnects; later commands fail unsent', async () => {
    const { proxy, client: redis } = await proxied({ reconnect: false });
    await proxy.setMode('blackhole');
    const inflight = outcome(redis.echo('lost'));
    await proxy.waitForClientBytes(proxy.bytesFromClient + wireLength(['ECHO', 'lost']));
    await proxy.setMode('reset');
    const { error } = await inflight;
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: true });
    await proxy.setMode('pass');
    const after = await outcome(redis.echo('after'));
    expect(after.error).toBeInstanceOf(RespireConnectionError);
    expect(after.error).toMatchObject({ written: false });
    expect(proxy.connectionsAccepted).toBe(1);
  });

  it('calls a custom reconnect function with (attempt, cause) and stops when it returns false', async () => {
    const probe = new ReconnectProbe((attempt) => (attempt < 4 ? 10 : false));
    const { proxy, client: redis } = await proxied({ reconnect: probe.policy, acquireTimeout: 10_000 });
    await dropAndRefuse(proxy, probe);
    const queued = outcome(redis.set('custom:queued', 'v'));
    await probe.called(4);
    expect(probe.calls.map((call) => call.attempt)).toEqual([1, 2, 3, 4]);
    for (const { cause } of probe.calls) expect(cause).toBeInstanceOf(RespireConnectionError);
    // Attempts after the first failed to connect at all.
    expect(String(probe.calls[1]!.cause.message)).toMatch(/ECONNREFUSED|cannot connect/);
    // Giving up fails what was queued, unsent, without waiting for acquireTimeout.
    const { error } = await queued;
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: false });
    await proxy.setMode('pass');
    const later = await outcome(redis.echo('x'));
    expect(later.error).toBeInstanceOf(RespireConnectionError);
    expect(probe.calls).toHaveLength(4);
  });

  it('resets the attempt count after a successful reconnect', async () => {
    const probe = new ReconnectProbe(() => 5);
    const { proxy, client: redis } = await proxied({ reconnect: probe.policy });
    await proxy.closeAllConnections();
    await probe.called(1);
    expect(await redis.echo('one')).toBe('one');
    await proxy.closeAllConnections();
    await probe.called(2);
    expect(probe.calls.map((call) => call.attempt)).toEqual([1, 1]);
    expect(await redis.echo('two')).toBe('two');
  });

  it('default policy: reconnects on its own with bounded delays', async () => {
    const { proxy, client: redis } = await proxied({ reconnect: { minDelay: 1, maxDelay: 20 } });
    for (let round = 0; round < 5; round++) {
      await proxy.closeAllConnections();
      await proxy.waitForConnectionsAccepted(round + 2);
      expect(await redis.echo(`round${round}`)).toBe(`round${round}`);
    }
    expect(proxy.connectionsAccepted).toBeGreaterThanOrEqual(6);
  });
});

describe('handshake state after a reconnect', () => {
  const acl = useRedisServer({ aclUsers: [{ name: 'again', password: 'again-secret' }] });

  it.each([3, 2] as const)('keeps user, name and database (protocol %i)', async (protocol) => {
    const proxy = await startProxy({ host: acl.host, port: acl.port });
    const probe = new ReconnectProbe(() => 5);
    const redis = await RespireClient.connect({
      endpoints: [{ host: proxy.host, port: proxy.port }],
      protocol,
      username: 'again',
      password: 'again-secret',
      clientName: `again-${protocol}`,
      database: 4,
      reconnect: probe.policy,
    });
    track(redis);
    const before = await redis.send(['CLIENT', 'ID']);
    await proxy.closeAllConnections();
    await probe.called(1);
    await proxy.waitForConnectionsAccepted(2);
    expect(await redis.set('again:key', 'in-db-4')).toBe('OK');
    const info = String(await redis.send(['CLIENT', 'INFO']));
    expect(await redis.send(['CLIENT', 'ID'])).not.toBe(before);
    expect(info).toMatch(/\bdb=4\b/);
    expect(info).toMatch(new RegExp(`\\bname=again-${protocol}\\b`));
    expect(info).toMatch(/\buser=again\b/);
    expect(info).toMatch(new RegExp(`\\bresp=${protocol}\\b`));
    const direct = await open({ username: 'again', password: 'again-secret', database: 4 }, acl.port);
    expect(await direct.get('again:key')).toBe('in-db-4');
  });
});

describe('retry option', () => {
  async function resetWhileHeld(redis: RespireClient, proxy: FaultProxy, key: string) {
    await redis.set(key, 'stored');
    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    const get = outcome(redis.get(key));
    const incr = outcome(redis.send(['INCR', `${key}:n`]));
    await proxy.waitForClientBytes(before + wireLength(['GET', key]) + wireLength(['INCR', `${key}:n`]));
    await proxy.setMode('reset');
    await proxy.setMode('pass');
    return { get: await get, incr: await incr };
  }

  it('maxAttempts 3 retries a written GET after a reset, never a written INCR', async () => {
    const { proxy, client: redis } = await proxied({ retry: { maxAttempts: 3 }, reconnect: () => 5 });
    const { get, incr } = await resetWhileHeld(redis, proxy, 'retry:a');
    expect(get).toEqual({ value: 'stored' });
    expect(incr.error).toBeInstanceOf(RespireConnectionError);
    expect(incr.error).toMatchObject({ written: true });
    // The reset dropped the INCR before the server; a retry would have made it 1.
    expect(await redis.get('retry:a:n')).toBeNull();
  });

  it('without retry the same GET fails (the scenario really loses it)', async () => {
    const { proxy, client: redis } = await proxied({ reconnect: () => 5 });
    const { get } = await resetWhileHeld(redis, proxy, 'retry:b');
    expect(get.error).toBeInstanceOf(RespireConnectionError);
    expect(get.error).toMatchObject({ written: true });
  });

  it('retries a command that was never written', async () => {
    const probe = new ReconnectProbe(() => 20);
    const { proxy, client: redis } = await proxied({
      retry: { maxAttempts: 3 },
      reconnect: probe.policy,
      acquireTimeout: 150,
    });
    await dropAndRefuse(proxy, probe);
    // The first attempt times out unsent after 150 ms; only then does the server come back.
    const issued = performance.now();
    const incr = outcome(redis.send(['INCR', 'retry:unsent']));
    while (performance.now() - issued < 200) await probe.called(probe.calls.length + 1);
    await proxy.setMode('pass');
    expect(await incr).toEqual({ value: 1 });
    expect(await redis.get('retry:unsent')).toBe('1');
  });

  it('gives up after maxAttempts with the last error', async () => {
    const probe = new ReconnectProbe(() => 10);
    const { proxy, client: redis } = await proxied({
      retry: { maxAttempts: 2 },
      reconnect: probe.policy,
      acquireTimeout: 100,
    });
    await dropAndRefuse(proxy, probe);
    const started = performance.now();
    const { error } = await outcome(redis.get('retry:never'));
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: false });
    expect(error).not.toBeInstanceOf(RespireTimeoutError);
    // Fails fast: two 100 ms acquire deadlines, not a reconnect loop without end.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
