// Deadlines against a real server behind the fault proxy (issue 3 "Pipeline", issue 10): commandTimeout
// as a reply deadline from the write that fails its command alone, an unresponsive connection
// replaced, one timer per connection, and acquireTimeout for commands that find no room.
import { describe, expect, it, vi } from 'vitest';
import {
  RespireConfigurationError,
  RespireConnectionError,
  type RespireOptions,
  RespireTimeoutError,
} from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { inflightCount, nextTurn, outcome, useTestClients } from './support.js';

const server = useRedisServer();
const { open, proxied } = useTestClients(server);

describe('commandTimeout', () => {
  it('times out a black-holed command, replaces the connection, fails the rest, then recovers', async () => {
    const { proxy, client: redis } = await proxied({
      commandTimeout: 200,
      connectTimeout: 300,
      reconnect: { minDelay: 5, maxDelay: 20 },
    });
    await redis.set('t:seed', 'seed');
    await proxy.setMode('blackhole');
    const started = performance.now();
    const target = outcome(redis.get('t:seed'));
    const others = [
      outcome(redis.set('t:a', '1', { timeout: 10_000 })),
      outcome(redis.send(['INCR', 't:n'], { timeout: 10_000 })),
      outcome(redis.echo('t', { timeout: 0 })),
    ];
    const { error } = await target;
    expect(error).toBeInstanceOf(RespireTimeoutError);
    expect(error).toMatchObject({ phase: 'response', written: true, timeoutMs: 200 });
    // Fails fast: at the deadline, not at the 10 s ones of the commands behind it.
    expect(performance.now() - started).toBeLessThan(5000);
    for (const other of await Promise.all(others)) {
      expect(other.error).toBeInstanceOf(RespireConnectionError);
      expect(other.error).toMatchObject({ written: true });
    }
    // While the partition lasts the client keeps trying (each attempt runs into connectTimeout).
    await proxy.waitForConnectionsAccepted(3);
    await proxy.setMode('pass');
    expect(await redis.echo('healed')).toBe('healed');
    expect(await redis.get('t:seed')).toBe('seed');
  });

  it('counts the deadline from the write: a command waiting for a connection is not timed out', async () => {
    let attempts = 0;
    let onAttempt: () => void = () => {};
    const { proxy, client: redis } = await proxied({
      commandTimeout: 100,
      acquireTimeout: 5000,
      reconnect: () => {
        attempts++;
        onAttempt();
        return 50;
      },
    });
    const attemptsReached = (count: number) =>
      new Promise<void>((resolve) => {
        onAttempt = () => {
          if (attempts >= count) resolve();
        };
      });
    await proxy.setMode('refuse');
    const lost = attemptsReached(1);
    await proxy.closeAllConnections();
    await lost;
    // Issued while disconnected, then kept unsent for several reconnect attempts (> 100 ms).
    const started = performance.now();
    const queued = outcome(redis.echo('waited'));
    await attemptsReached(4);
    expect(performance.now() - started).toBeGreaterThan(100);
    await proxy.setMode('pass');
    const { value, error } = await queued;
    expect(error).toBeUndefined();
    expect(value).toBe('waited');
  });

  it('re-arms its one timer to an earlier deadline that arrives later', async () => {
    const { proxy, client: redis } = await proxied({ commandTimeout: 0, reconnect: () => 5 });
    await proxy.setMode('blackhole');
    const started = performance.now();
    const long = outcome(redis.echo('long', { timeout: 20_000 }));
    await nextTurn();
    const short = outcome(redis.echo('short', { timeout: 150 }));
    const { error } = await short;
    expect(error).toMatchObject({ name: 'RespireTimeoutError', phase: 'response', timeoutMs: 150 });
    // Fails fast: at its own 150 ms deadline, not at the 20 s one armed first.
    expect(performance.now() - started).toBeLessThan(5000);
    // It failed alone: the long one still waits for its reply on the same connection, and gets
    // its own (not the short one's) once the link heals.
    await proxy.setMode('pass');
    expect(await long).toEqual({ value: 'long' });
    expect(await redis.echo('ok')).toBe('ok');
    expect(proxy.connectionsAccepted).toBe(1);
  });

  it('applies a per-command timeout override, and timeout 0 disables the deadline', async () => {
    const redis = await open({ commandTimeout: 50 });
    // DEBUG SLEEP holds the reply for 200 ms: longer than the default, shorter than the override.
    expect(await redis.send(['DEBUG', 'SLEEP', '0.2'], { timeout: 5000 })).toBe('OK');
    expect(await redis.send(['DEBUG', 'SLEEP', '0.2'], { timeout: 0 })).toBe('OK');
    await expect(redis.send(['DEBUG', 'SLEEP', '0.2'])).rejects.toMatchObject({
      name: 'RespireTimeoutError',
      phase: 'response',
      timeoutMs: 50,
    });
    expect(await redis.echo('still serving')).toBe('still serving');
  });

  it('rejects an invalid per-command timeout with RespireConfigurationError', async () => {
    const redis = await open();
    for (const timeout of [-1, 1.5, Number.NaN, 2 ** 31]) {
      const error = await redis.get('k', { timeout }).catch((rejection: unknown) => rejection);
      expect(error).toBeInstanceOf(RespireConfigurationError);
      expect(error).toMatchObject({ option: 'timeout' });
    }
  });

  it('uses one timer per connection, not one per command', async () => {
    const redis = await open({ commandTimeout: 60_000 });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const replies = await Promise.all(Array.from({ length: 10_000 }, (_, i) => redis.echo(`d${i}`)));
    expect(replies[9999]).toBe('d9999');
    // A timer per command would be 10,000 calls.
    expect(timers.mock.calls.length).toBeLessThan(20);
  });
});

describe('acquireTimeout', () => {
  it('fails commands that find no room with RespireTimeoutError phase acquire, never sent', async () => {
    // The proxy holds 16 KiB and the kernel a few MiB; 2 MiB values fill both, so the send queue
    // cannot drain while the partition lasts.
    const { proxy, client: redis } = await proxied(
      { commandTimeout: 0, acquireTimeout: 300, maxPendingCommands: 4 },
      { maxQueuedBytes: 16 * 1024 },
    );
    await proxy.setMode('blackhole');
    const value = 'v'.repeat(2 * 1024 * 1024);
    const count = 40;
    let unsettled = count;
    let everyUnsentSettled: () => void = () => {};
    const stuck = new Promise<void>((resolve) => {
      everyUnsentSettled = resolve;
    });
    const results = Array.from({ length: count }, (_, i) =>
      outcome(redis.set(`acq:${i}`, value)).then((result) => {
        unsettled--;
        // What is left unsettled is exactly what was written and waits for the partition to heal.
        if (unsettled === inflightCount(redis)) everyUnsentSettled();
        return result;
      }),
    );
    await stuck;
    const written = unsettled;
    await proxy.setMode('pass');
    const outcomes = await Promise.all(results);
    const failed = outcomes.filter((result) => result.error !== undefined);
    expect(failed).toHaveLength(count - written);
    // The queue (4) and its waiters (4) at least waited for room and then ran out of time.
    expect(failed.length).toBeGreaterThanOrEqual(8);
    for (const { error } of failed) {
      expect(error).toBeInstanceOf(RespireTimeoutError);
      expect(error).toMatchObject({ phase: 'acquire', written: false });
    }
    expect(
      failed.filter(({ error }) => (error as RespireTimeoutError).timeoutMs === 300).length,
    ).toBeGreaterThanOrEqual(4);
    expect(written).toBeGreaterThan(0);
    // Exactly the commands that succeeded reached Redis; the acquire failures were never sent.
    const checker = await open();
    const exists = await Promise.all(
      Array.from({ length: count }, (_, i) => checker.send(['EXISTS', `acq:${i}`])),
    );
    outcomes.forEach((result, i) => {
      if (result.error === undefined) expect(result.value).toBe('OK');
      expect(exists[i]).toBe(result.error === undefined ? 1 : 0);
    });
  });

  it('lets a same-tick burst larger than maxPendingCommands through on a healthy connection', async () => {
    // Room frees up as soon as the tick's batch is written: callers wait for it, they do not fail.
    const redis = await open({ maxPendingCommands: 100, acquireTimeout: 5000 });
    const outcomes = await Promise.all(Array.from({ length: 1000 }, (_, i) => outcome(redis.echo(`b${i}`))));
    const failures = outcomes.filter((result) => result.error !== undefined);
    expect(failures.map(({ error }) => String(error)).slice(0, 3)).toEqual([]);
    expect(outcomes.map((result) => result.value)).toEqual(Array.from({ length: 1000 }, (_, i) => `b${i}`));
  });

  it('times out a blocking command waiting for a dedicated connection', async () => {
    const redis = await open({ maxDedicatedConnections: 1, acquireTimeout: 200 } as Partial<RespireOptions>);
    const first = redis.send(['BLPOP', 'acq:block', '0']);
    const second = outcome(redis.send(['BLPOP', 'acq:block', '0']));
    const { error } = await second;
    expect(error).toBeInstanceOf(RespireTimeoutError);
    expect(error).toMatchObject({ phase: 'acquire', written: false });
    await redis.send(['RPUSH', 'acq:block', 'x']);
    expect(await first).toEqual(['acq:block', 'x']);
  });
});
