// Sentinel credentials apart from data credentials (issue 12 "Discovery", API.md "Sentinel"): the
// sentinels take only `requirepass`, the data nodes only an ACL user, so a credential sent to the
// wrong side is refused and discovery working proves they were never mixed. No credential ever
// appears in an error message, thrown or reported in the background (issue 10 #5).
import { describe, expect, it } from 'vitest';
import {
  RespireAuthenticationError,
  RespireConfigurationError,
  RespireConnectionError,
} from '../../src/errors.js';
import { SentinelWatcher, validateSentinelOptions } from '../../src/sentinel/index.js';
import { systemClock } from '../../src/util/clock.js';
import { systemRandom } from '../../src/util/random.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { ports, reported, sentinelOptions, watch } from './support.js';

const SENTINEL_PASSWORD = 'sentinel-pw-5f1c';
const DATA_USER = 'app-user-77ab';
const DATA_PASSWORD = 'data-pw-9e2d';
const SECRETS = [SENTINEL_PASSWORD, DATA_USER, DATA_PASSWORD];

const group = useRedisSentinel({
  serviceName: 'secured',
  sentinelPassword: SENTINEL_PASSWORD,
  dataAuth: { username: DATA_USER, password: DATA_PASSWORD },
});

const DATA = { username: DATA_USER, password: DATA_PASSWORD, tls: undefined, connectTimeout: 2000 };

/** Every message in an error and its causes (AggregateError members included). */
function messagesOf(error: unknown, depth = 0): string[] {
  if (!(error instanceof Error) || depth > 8) return [String(error)];
  const nested =
    error instanceof AggregateError ? error.errors.flatMap((inner) => messagesOf(inner, depth + 1)) : [];
  const cause = error.cause === undefined ? [] : messagesOf(error.cause, depth + 1);
  return [error.message, String(error.stack), ...nested, ...cause];
}

function expectNoSecret(errors: readonly unknown[]): void {
  for (const text of errors.flatMap((error) => messagesOf(error))) {
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  }
}

async function startError(sentinel: object, data: object): Promise<unknown> {
  return SentinelWatcher.start({
    sentinel: sentinelOptions(group, sentinel),
    data: { ...DATA, ...data },
    clock: systemClock,
    random: systemRandom,
  }).catch((thrown: unknown) => thrown);
}

describe('SentinelWatcher credentials', () => {
  it('uses the sentinel password for sentinels and the data ACL user for data nodes', async () => {
    const watcher = await watch(group, {
      sentinel: { password: SENTINEL_PASSWORD },
      data: DATA,
      watchReplicas: true,
    });
    expect(watcher.primary.port).toBe(group.primary.port);
    // Replicas pass ROLE only with the data credentials.
    expect(ports(watcher.replicas())).toEqual(ports(group.replicas));
    expect(watcher.monitoredSentinel).toBeDefined();
    expect(await watcher.resolveAgain('reconnect')).toEqual(watcher.primary);
    expectNoSecret(reported.get(watcher)!);
  });

  it('is refused by the sentinels given the data credentials, and says so without them', async () => {
    const error = await startError({ username: DATA_USER, password: DATA_PASSWORD }, {});
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as Error).message).toMatch(/^no sentinel of the service "secured" is reachable/);
    const causes = ((error as Error).cause as AggregateError).errors;
    expect(causes.every((cause) => cause instanceof RespireAuthenticationError)).toBe(true);
    expectNoSecret([error]);
  });

  it('is refused by the primary given the sentinel password, at once and without it', async () => {
    const error = await startError(
      { password: SENTINEL_PASSWORD },
      { username: undefined, password: SENTINEL_PASSWORD },
    );
    expect(error).toBeInstanceOf(RespireAuthenticationError);
    expect((error as Error).message).toMatch(
      /^the primary of "secured", 127\.0\.0\.1:\d+, refused the data credentials/,
    );
    expectNoSecret([error]);
  });

  it('never echoes a sentinel credential in an option error', () => {
    const errors: unknown[] = [];
    for (const bad of [
      { serviceName: 'secured', endpoints: ['127.0.0.1:1'], password: 42 },
      {
        serviceName: 'secured',
        endpoints: [`${DATA_USER}:${DATA_PASSWORD}@127.0.0.1:26379`],
        password: SENTINEL_PASSWORD,
      },
      { serviceName: 'secured', endpoints: ['127.0.0.1:1'], username: DATA_USER },
      { serviceName: '', endpoints: ['127.0.0.1:1'], password: SENTINEL_PASSWORD },
    ]) {
      try {
        validateSentinelOptions(bad);
      } catch (error) {
        errors.push(error);
      }
    }
    expect(errors).toHaveLength(4);
    for (const error of errors) expect(error).toBeInstanceOf(RespireConfigurationError);
    expectNoSecret(errors);
    expectNoSecret(errors.map((error) => JSON.stringify((error as RespireConfigurationError).value)));
  });
});
