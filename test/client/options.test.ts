// RespireOptions validation (API.md "RespireOptions"): every invalid option makes `connect` reject
// with RespireConfigurationError naming the option, before any socket is opened.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireClient, RespireConfigurationError, type RespireOptions } from '../../src/index.js';

/** A listener that counts connection attempts: a rejected configuration must never reach it. */
let listener: net.Server;
let port = 0;
let accepted = 0;

beforeAll(async () => {
  listener = net.createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen({ host: '127.0.0.1', port: 0 }, resolve));
  port = (listener.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
});

/** Options that are valid except for `patch`, pointed at the counting listener. */
function withEndpoint(patch: Record<string, unknown>): RespireOptions {
  return { endpoints: [{ host: '127.0.0.1', port }], ...patch } as RespireOptions;
}

async function configurationError(options: unknown): Promise<RespireConfigurationError> {
  const acceptedBefore = accepted;
  const error = await RespireClient.connect(options as RespireOptions).then(
    (client) => {
      client.destroy();
      throw new Error('connect resolved with invalid options');
    },
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(RespireConfigurationError);
  // Rejected before any socket was opened.
  expect(accepted).toBe(acceptedBefore);
  return error as RespireConfigurationError;
}

const cases: [label: string, options: () => unknown, option: string][] = [
  ['options not an object', () => 'redis://127.0.0.1', 'options'],
  ['endpoints missing', () => ({}), 'endpoints'],
  ['endpoints empty', () => ({ endpoints: [] }), 'endpoints'],
  ['endpoints not an array', () => ({ endpoints: '127.0.0.1:6379' }), 'endpoints'],
  ['two endpoints in standalone mode', () => ({ endpoints: ['127.0.0.1:1', '127.0.0.1:2'] }), 'endpoints'],
  ['endpoint string with port 0', () => ({ endpoints: ['127.0.0.1:0'] }), 'endpoints[0]'],
  ['endpoint string with port 65536', () => ({ endpoints: ['127.0.0.1:65536'] }), 'endpoints[0]'],
  ['endpoint string with a bad port', () => ({ endpoints: ['127.0.0.1:http'] }), 'endpoints[0]'],
  ['endpoint object with port -1', () => ({ endpoints: [{ host: '127.0.0.1', port: -1 }] }), 'endpoints[0]'],
  [
    'endpoint object with port 1.5',
    () => ({ endpoints: [{ host: '127.0.0.1', port: 1.5 }] }),
    'endpoints[0]',
  ],
  [
    'endpoint object with a string port',
    () => ({ endpoints: [{ host: '127.0.0.1', port: '6379' }] }),
    'endpoints[0]',
  ],
  ['endpoint object with an empty host', () => ({ endpoints: [{ host: '', port: 6379 }] }), 'endpoints[0]'],
  ['endpoint of the wrong type', () => ({ endpoints: [6379] }), 'endpoints[0]'],
  ['endpoint string with user info', () => ({ endpoints: ['app@127.0.0.1:6379'] }), 'endpoints[0]'],
  ['endpoint object host with a blank', () => ({ endpoints: [{ host: 'my host' }] }), 'endpoints[0]'],
  ['connectTimeout 0', () => withEndpoint({ connectTimeout: 0 }), 'connectTimeout'],
  ['connectTimeout negative', () => withEndpoint({ connectTimeout: -5 }), 'connectTimeout'],
  ['connectTimeout NaN', () => withEndpoint({ connectTimeout: Number.NaN }), 'connectTimeout'],
  ['connectTimeout over 2^31-1', () => withEndpoint({ connectTimeout: 2 ** 31 }), 'connectTimeout'],
  ['commandTimeout negative', () => withEndpoint({ commandTimeout: -1 }), 'commandTimeout'],
  ['commandTimeout fractional', () => withEndpoint({ commandTimeout: 0.5 }), 'commandTimeout'],
  ['commandTimeout Infinity', () => withEndpoint({ commandTimeout: Infinity }), 'commandTimeout'],
  ['acquireTimeout negative', () => withEndpoint({ acquireTimeout: -1 }), 'acquireTimeout'],
  ['acquireTimeout a string', () => withEndpoint({ acquireTimeout: '100' }), 'acquireTimeout'],
  ['maxPendingCommands 0', () => withEndpoint({ maxPendingCommands: 0 }), 'maxPendingCommands'],
  ['maxPendingCommands fractional', () => withEndpoint({ maxPendingCommands: 10.5 }), 'maxPendingCommands'],
  ['maxPendingCommands huge', () => withEndpoint({ maxPendingCommands: 2 ** 40 }), 'maxPendingCommands'],
  ['protocol 1', () => withEndpoint({ protocol: 1 }), 'protocol'],
  ['protocol 4', () => withEndpoint({ protocol: 4 }), 'protocol'],
  ['protocol "3"', () => withEndpoint({ protocol: '3' }), 'protocol'],
  ['clientName with a space', () => withEndpoint({ clientName: 'my app' }), 'clientName'],
  ['clientName with a newline', () => withEndpoint({ clientName: 'app\n' }), 'clientName'],
  ['clientName empty', () => withEndpoint({ clientName: '' }), 'clientName'],
  ['clientName not a string', () => withEndpoint({ clientName: 42 }), 'clientName'],
  ['username not a string', () => withEndpoint({ username: 1, password: 'x' }), 'username'],
  ['password not a string', () => withEndpoint({ password: 1 }), 'password'],
  ['database negative', () => withEndpoint({ database: -1 }), 'database'],
  ['database fractional', () => withEndpoint({ database: 1.5 }), 'database'],
  ['retry.maxAttempts 0', () => withEndpoint({ retry: { maxAttempts: 0 } }), 'retry.maxAttempts'],
  ['retry.maxAttempts 2.5', () => withEndpoint({ retry: { maxAttempts: 2.5 } }), 'retry.maxAttempts'],
  ['retry.maxAttempts 101', () => withEndpoint({ retry: { maxAttempts: 101 } }), 'retry.maxAttempts'],
  ['retry not an object', () => withEndpoint({ retry: 3 }), 'retry'],
  ['tls a string', () => withEndpoint({ tls: 'yes' }), 'tls'],
  ['reconnect a number', () => withEndpoint({ reconnect: 100 }), 'reconnect'],
  ['reconnect.minDelay negative', () => withEndpoint({ reconnect: { minDelay: -1 } }), 'reconnect.minDelay'],
  [
    'reconnect.maxDelay below minDelay',
    () => withEndpoint({ reconnect: { minDelay: 100, maxDelay: 50 } }),
    'reconnect.maxDelay',
  ],
  [
    'reconnect.maxAttempts negative',
    () => withEndpoint({ reconnect: { maxAttempts: -1 } }),
    'reconnect.maxAttempts',
  ],
  [
    'replicaEndpoints together with circuitBreaker',
    () => withEndpoint({ replicaEndpoints: ['127.0.0.1:7000'], circuitBreaker: {} }),
    'replicaEndpoints',
  ],
  ['circuitBreaker not an object', () => withEndpoint({ circuitBreaker: 'on' }), 'circuitBreaker'],
  [
    'circuitBreaker.failureRateThreshold 0',
    () => withEndpoint({ circuitBreaker: { failureRateThreshold: 0 } }),
    'circuitBreaker.failureRateThreshold',
  ],
  [
    'circuitBreaker.failureRateThreshold above 1',
    () => withEndpoint({ circuitBreaker: { failureRateThreshold: 1.01 } }),
    'circuitBreaker.failureRateThreshold',
  ],
  [
    'circuitBreaker.minimumFailureCount 0',
    () => withEndpoint({ circuitBreaker: { minimumFailureCount: 0 } }),
    'circuitBreaker.minimumFailureCount',
  ],
  [
    'circuitBreaker.minimumFailureCount above maximumSampleCount',
    () => withEndpoint({ circuitBreaker: { minimumFailureCount: 11, maximumSampleCount: 10 } }),
    'circuitBreaker.minimumFailureCount',
  ],
  [
    'circuitBreaker.samplingWindow 0',
    () => withEndpoint({ circuitBreaker: { samplingWindow: 0 } }),
    'circuitBreaker.samplingWindow',
  ],
  [
    'circuitBreaker.maximumSampleCount 0',
    () => withEndpoint({ circuitBreaker: { maximumSampleCount: 0 } }),
    'circuitBreaker.maximumSampleCount',
  ],
  [
    'circuitBreaker.maximumSampleCount 65537',
    () => withEndpoint({ circuitBreaker: { maximumSampleCount: 65537 } }),
    'circuitBreaker.maximumSampleCount',
  ],
  [
    'circuitBreaker.openDuration 0',
    () => withEndpoint({ circuitBreaker: { openDuration: 0 } }),
    'circuitBreaker.openDuration',
  ],
  [
    'circuitBreaker.openDuration negative',
    () => withEndpoint({ circuitBreaker: { openDuration: -100 } }),
    'circuitBreaker.openDuration',
  ],
  [
    'circuitBreaker.halfOpenProbeCount 0',
    () => withEndpoint({ circuitBreaker: { halfOpenProbeCount: 0 } }),
    'circuitBreaker.halfOpenProbeCount',
  ],
  [
    'circuitBreaker.halfOpenProbeCount 65537',
    () => withEndpoint({ circuitBreaker: { halfOpenProbeCount: 65537 } }),
    'circuitBreaker.halfOpenProbeCount',
  ],
];

describe('RespireClient.connect option validation', () => {
  it.each(cases)('%s → RespireConfigurationError naming the option', async (_label, options, option) => {
    const error = await configurationError(options());
    expect(error.option).toBe(option);
    expect(error.message).toContain(option);
    // The message names the allowed range as well as the option.
    expect(error.allowed.length).toBeGreaterThan(0);
    expect(error.message).toContain(error.allowed);
  });

  it('keeps the rejected value on the error', async () => {
    const error = await configurationError(withEndpoint({ maxPendingCommands: -3 }));
    expect(error.value).toBe(-3);
    expect(error.message).toContain('-3');
  });

  it('accepts the documented boundary values', async () => {
    // Not a rejection: these reach the (closing) listener and fail there with a connection error.
    const acceptedBefore = accepted;
    const error = await RespireClient.connect(
      withEndpoint({
        connectTimeout: 1000,
        commandTimeout: 0,
        acquireTimeout: 0,
        maxPendingCommands: 1,
        protocol: 2,
        clientName: 'app-1',
        retry: { maxAttempts: 100 },
        reconnect: false,
        circuitBreaker: {
          failureRateThreshold: 1,
          minimumFailureCount: 1,
          maximumSampleCount: 65536,
          halfOpenProbeCount: 65536,
        },
      }),
    ).then(
      (client) => {
        client.destroy();
        return undefined;
      },
      (rejection: unknown) => rejection,
    );
    expect(error).not.toBeInstanceOf(RespireConfigurationError);
    expect(error).toMatchObject({ name: 'RespireConnectionError' });
    expect(accepted).toBe(acceptedBefore + 1);
  });
});
