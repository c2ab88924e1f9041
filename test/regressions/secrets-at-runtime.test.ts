// Regression (issue 17, "No error message, metric or diagnostic ever carries a password"): with
// URLs accepted, a password now reaches the client in a `url`, in an endpoint URL (plain and
// percent-encoded) and in `password`, and must still never come back out. Clients configured
// each way run against a real server through the faults users meet (a refused password, an
// error reply, a reply deadline, a killed connection, a tripped circuit, a reconnect), and every
// error, every metric measurement, every diagnostics_channel message and every process warning
// is searched for the secret.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiagnosticChannels, RespireClient, type RespireOptions } from '../../src/index.js';
import { RecordingMeter } from '../client/circuit-kit.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const SECRET = 'Sw0rdf1sh-rt/@:';
const ENCODED = encodeURIComponent(SECRET);
const WRONG = 'N0t-the-Sw0rdf1sh';
const NEEDLES = [SECRET, ENCODED, WRONG, encodeURIComponent(WRONG)];

// The server listens on a Unix socket too, for the `{ path }` way below.
const socketDir = mkdtempSync(path.join(os.tmpdir(), 'respire-secrets-'));
const SOCKET = path.join(socketDir, 'redis.sock');
const server = useRedisServer({
  aclUsers: [{ name: 'app', password: SECRET }],
  configLines: [`unixsocket ${SOCKET}`, 'unixsocketperm 700'],
});
afterAll(() => rmSync(socketDir, { recursive: true, force: true }));

const seen: unknown[] = [];
const record = (message: unknown): void => {
  // Diagnostic messages are mutated after publishing (durationMs, error): keep a deep copy now
  // and the object itself, searched at the end.
  seen.push(inspect(message, { depth: 8, showHidden: true }), message);
};
const onWarning = (warning: Error): void => {
  seen.push(warning);
};
beforeAll(() => {
  for (const name of Object.values(DiagnosticChannels)) subscribe(name, record);
  process.on('warning', onWarning);
});
afterAll(() => {
  for (const name of Object.values(DiagnosticChannels)) unsubscribe(name, record);
  process.off('warning', onWarning);
});

/** Every place the secret might hide in `value`, searched as text, deeply. */
function tracesOf(value: unknown): string[] {
  const text = typeof value === 'string' ? value : inspect(value, { depth: 12, showHidden: true });
  let json = '';
  try {
    json = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? '';
  } catch {
    // Circular diagnostics: inspect above covers them.
  }
  const haystack = `${text}\n${json}\n${value instanceof Error ? `${value.message}\n${value.stack}` : ''}`;
  return NEEDLES.filter((needle) => haystack.includes(needle));
}

type Configure = (host: string, port: number, password: string) => RespireOptions;
const WAYS: [label: string, configure: Configure][] = [
  ['the url option', (h, p, pw) => ({ url: `redis://app:${encodeURIComponent(pw)}@${h}:${p}/1` })],
  ['an endpoint URL', (h, p, pw) => ({ endpoints: [`redis://app:${encodeURIComponent(pw)}@${h}:${p}`] })],
  ['username and password', (h, p, pw) => ({ endpoints: [`${h}:${p}`], username: 'app', password: pw })],
  ['a Unix socket path', (_h, _p, pw) => ({ endpoints: [{ path: SOCKET }], username: 'app', password: pw })],
];

describe.each(WAYS)('a password given through %s', (_label, configure) => {
  it('appears in no error, metric, diagnostic or warning', async () => {
    const meter = new RecordingMeter();
    const errors: unknown[] = [];
    const base = { meter, connectTimeout: 2000, reconnect: () => 10 };

    // A refused password: the authentication error must not echo either password.
    errors.push(
      await RespireClient.connect({ ...configure(server.host, server.port, WRONG), ...base }).then(
        (client) => client.destroy(),
        (error: unknown) => error,
      ),
    );
    expect(errors[0]).toBeInstanceOf(Error);

    const redis = await RespireClient.connect({
      ...configure(server.host, server.port, SECRET),
      ...base,
      commandTimeout: 300,
      circuitBreaker: { minimumFailureCount: 2, failureRateThreshold: 0.5, openDuration: 60_000 },
    });
    try {
      await redis.set('s', 'v');
      errors.push(await redis.lpush('s', 'x').catch((error: unknown) => error)); // WRONGTYPE
      // The server drops the connection: the client reconnects with the same credentials.
      await redis.send(['CLIENT', 'KILL', 'USER', 'app']).catch((error: unknown) => errors.push(error));
      expect(await redis.ping()).toBe('PONG');
      server.kill('SIGSTOP');
      try {
        for (const result of await Promise.allSettled([redis.ping(), redis.ping(), redis.ping()])) {
          if (result.status === 'rejected') errors.push(result.reason);
        }
        errors.push(await redis.ping().catch((error: unknown) => error)); // the circuit is open
      } finally {
        server.kill('SIGCONT');
      }
    } finally {
      redis.destroy();
    }
    expect(errors.length).toBeGreaterThanOrEqual(5);
    expect(meter.measurements.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    for (const [index, error] of errors.entries()) expect(tracesOf(error), `error ${index}`).toEqual([]);
    for (const measurement of meter.measurements) expect(tracesOf(measurement)).toEqual([]);
    for (const message of seen) expect(tracesOf(message)).toEqual([]);
  });
});
