// The diagnostics channels on their own (diagnostics.ts): each channel's documented message, one
// message object from a command's start to its end or error, no work without a subscriber, and
// never a key or a value in a message. The client publishing them is in metrics-client.test.ts.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import {
  commandsTraced,
  observeConnections,
  publishCircuitTransition,
  traceCommand,
} from '../../src/client/diagnostics.js';
import { ClientTelemetry } from '../../src/client/metrics.js';
import {
  type CommandDiagnostic,
  DiagnosticChannels,
  RespireConnectionError,
  RespireServerError,
} from '../../src/index.js';
import { Command } from '../../src/transport/command.js';

const endpoint = { host: '127.0.0.1', port: 7002 };

/** Subscriptions made by a test, removed after it. */
const subscriptions: [string, (message: unknown) => void][] = [];
afterEach(() => {
  for (const [name, listener] of subscriptions.splice(0)) unsubscribe(name, listener);
});

/** Collects what `names` publish, as [channel, message] in order. */
function listen(...names: string[]): [string, unknown][] {
  const seen: [string, unknown][] = [];
  for (const name of names) {
    const listener = (message: unknown) => seen.push([name, message]);
    subscribe(name, listener);
    subscriptions.push([name, listener]);
  }
  return seen;
}

/** A clock that advances 5 ms per read and counts its reads. */
function steppingClock() {
  const clock = {
    reads: 0,
    time: 100,
    now() {
      clock.reads++;
      clock.time += 5;
      return clock.time;
    },
  };
  return clock;
}

function command(...args: string[]): Command<unknown> {
  return new Command(args, 0, undefined, undefined, 0);
}

describe('command channels', () => {
  it('publish start, then end with the duration, on one message object', async () => {
    const seen = listen(DiagnosticChannels.commandStart, DiagnosticChannels.commandEnd);
    const clock = steppingClock();
    const get = command('get', 'user:42:secret');
    traceCommand(get, endpoint, clock);
    expect(seen.map(([name]) => name)).toEqual([DiagnosticChannels.commandStart]);
    expect(seen[0]![1]).toEqual({
      command: 'GET',
      endpoint,
      durationMs: 0,
      error: undefined,
      errorType: undefined,
    });
    get.resolve('a value');
    await get.promise;
    await Promise.resolve();
    expect(seen.map(([name]) => name)).toEqual([
      DiagnosticChannels.commandStart,
      DiagnosticChannels.commandEnd,
    ]);
    expect(seen[1]![1]).toBe(seen[0]![1]);
    expect((seen[1]![1] as CommandDiagnostic).durationMs).toBe(5);
    expect(JSON.stringify(seen.map(([, message]) => message))).not.toMatch(/user:42|a value/);
  });

  it('publish error with the error and its type, and no end', async () => {
    const seen = listen(
      DiagnosticChannels.commandStart,
      DiagnosticChannels.commandEnd,
      DiagnosticChannels.commandError,
    );
    const set = command('SET', 'k', 'v');
    traceCommand(set, endpoint, steppingClock());
    const error = new RespireServerError('OOM command not allowed');
    set.reject(error);
    await set.promise.catch(() => {});
    await Promise.resolve();
    expect(seen.map(([name]) => name)).toEqual([
      DiagnosticChannels.commandStart,
      DiagnosticChannels.commandError,
    ]);
    expect(seen[1]![1]).toMatchObject({ command: 'SET', endpoint, durationMs: 5, error, errorType: 'OOM' });
  });

  it('do nothing without a subscriber: no clock read, no handler on the promise', async () => {
    expect(commandsTraced()).toBe(false);
    const clock = steppingClock();
    const get = command('GET', 'k');
    traceCommand(get, endpoint, clock);
    get.reject(new RespireConnectionError('lost'));
    // An untraced command's rejection is the caller's to handle: nothing else caught it.
    await expect(get.promise).rejects.toBeInstanceOf(RespireConnectionError);
    expect(clock.reads).toBe(0);
  });

  it('trace when only end or error has a subscriber', async () => {
    const seen = listen(DiagnosticChannels.commandError);
    expect(commandsTraced()).toBe(true);
    const ping = command('PING');
    traceCommand(ping, endpoint, steppingClock());
    ping.reject(new Error('boom'));
    await ping.promise.catch(() => {});
    await Promise.resolve();
    expect(seen).toEqual([
      [DiagnosticChannels.commandError, expect.objectContaining({ errorType: 'Error' })],
    ]);
  });
});

describe('connection channels', () => {
  it('publish connect (first, then reconnect), close and reconnect scheduling', () => {
    const seen = listen(
      DiagnosticChannels.connectionConnect,
      DiagnosticChannels.connectionClose,
      DiagnosticChannels.connectionReconnect,
    );
    const observer = observeConnections(endpoint, 'shared');
    const lost = new RespireConnectionError('connection to 127.0.0.1:7002 closed by the server');
    observer.connected();
    observer.disconnected(lost);
    observer.reconnecting(1, 50, lost);
    observer.connected();
    observer.disconnected(undefined);
    const common = { endpoint, role: 'shared' };
    expect(seen).toEqual([
      [
        DiagnosticChannels.connectionConnect,
        { ...common, reconnect: false, error: undefined, errorType: undefined },
      ],
      [
        DiagnosticChannels.connectionClose,
        { ...common, reconnect: false, error: lost, errorType: 'RespireConnectionError' },
      ],
      [
        DiagnosticChannels.connectionReconnect,
        { ...common, attempt: 1, delayMs: 50, error: lost, errorType: 'RespireConnectionError' },
      ],
      [
        DiagnosticChannels.connectionConnect,
        { ...common, reconnect: true, error: undefined, errorType: undefined },
      ],
      [
        DiagnosticChannels.connectionClose,
        { ...common, reconnect: false, error: undefined, errorType: undefined },
      ],
    ]);
  });

  it('still count connections while no one listens, so a later connect says reconnect', () => {
    const observer = observeConnections(endpoint, 'dedicated');
    observer.connected();
    const seen = listen(DiagnosticChannels.connectionConnect);
    observer.connected();
    expect(seen).toEqual([
      [DiagnosticChannels.connectionConnect, expect.objectContaining({ role: 'dedicated', reconnect: true })],
    ]);
  });
});

describe('circuit transition channel', () => {
  it('publishes every transition ClientTelemetry is told of, even with no meter', () => {
    const seen = listen(DiagnosticChannels.circuitTransition);
    ClientTelemetry.disabled.circuitTransition(endpoint, 'closed', 'open');
    publishCircuitTransition(endpoint, 'open', 'half_open');
    expect(seen).toEqual([
      [DiagnosticChannels.circuitTransition, { endpoint, from: 'closed', to: 'open' }],
      [DiagnosticChannels.circuitTransition, { endpoint, from: 'open', to: 'half_open' }],
    ]);
  });
});
