import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/errors.js';
import { Command, CommandState, type SettleObserver } from '../../src/transport/command.js';

/** A command as Connection.track leaves it: written, its reply owed. */
function written(signal: AbortSignal): { command: Command<unknown>; told: unknown[]; sunk: unknown[] } {
  const told: unknown[] = [];
  const sunk: unknown[] = [];
  const command = new Command<unknown>(['GET', 'k'], 0, undefined, signal, 0);
  const observer: SettleObserver = { commandSettled: (_, __, outcome) => told.push(outcome) };
  command.observer = observer;
  command.errorSink = (error) => sunk.push(error);
  command.state = CommandState.Written;
  command.promise.catch(() => {});
  return { command, told, sunk };
}

describe('Command aborted after its write', () => {
  it.each([
    [
      'the connection fails it',
      (command: Command<unknown>) => command.reject(new RespireConnectionError('lost')),
    ],
    ['its reply arrives', (command: Command<unknown>) => command.reply('v')],
    ['a confirmation resolves it', (command: Command<unknown>) => command.resolve(undefined)],
  ])('tells its observer and error sink once, even when %s later', async (_, later) => {
    const controller = new AbortController();
    const { command, told, sunk } = written(controller.signal);
    controller.abort('stop');
    await expect(command.promise).rejects.toBe('stop');
    later(command);
    expect(told).toEqual(['stop']);
    expect(sunk).toEqual(['stop']);
    expect(command.settled).toBe(true);
  });
});

describe('Commands sharing one signal', () => {
  it('all hear its abort once, queued or written, and one that left earlier hears nothing', async () => {
    const controller = new AbortController();
    const queued = new Command<unknown>(['GET', 'a'], 0, undefined, controller.signal, 0);
    const { command: sent, told } = written(controller.signal);
    const answered = new Command<unknown>(['GET', 'b'], 0, undefined, controller.signal, 0);
    answered.reply('b');
    controller.abort('stop');
    await expect(queued.promise).rejects.toBe('stop');
    await expect(sent.promise).rejects.toBe('stop');
    await expect(answered.promise).resolves.toBe('b');
    expect(told).toEqual(['stop']);
    expect(queued.settled).toBe(true);
    expect(sent.discardReply).toBe(true);
  });
});
