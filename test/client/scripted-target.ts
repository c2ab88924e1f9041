// A transaction target the test plays by hand (writes and replies), for the wire rules a healthy
// server cannot provoke (multi-wire.test.ts, the Sentinel switch regression).
import type { TransactionTarget } from '../../src/client/transactions/transaction-run.js';
import type { RespValue } from '../../src/resp/types.js';
import { type Command, CommandState } from '../../src/transport/command.js';

export const endpoint = { host: '127.0.0.1', port: 6399 };

/** Records what the transaction enqueues; the test plays the connection (writes and replies). */
export class ScriptedTarget implements TransactionTarget {
  readonly endpoint = endpoint;
  readonly queued: Command<unknown>[] = [];
  readonly requests: (readonly (string | Buffer)[])[] = [];
  connected = true;

  get current() {
    if (!this.connected) return undefined;
    return {
      request: (args: readonly (string | Buffer)[]): Promise<RespValue> => {
        this.requests.push(args);
        return Promise.resolve('OK');
      },
    };
  }

  enqueue(command: Command<unknown>): void {
    this.queued.push(command);
  }

  /** Writes the first `count` queued commands, as Connection.writeFrom would. */
  write(count: number): void {
    for (const command of this.queued.slice(0, count)) command.state = CommandState.Written;
  }

  names(): string[] {
    return this.queued.map((command) => String(command.args[0]));
  }

  unsent(): Command<unknown>[] {
    return this.queued.filter((command) => command.state === CommandState.Queued);
  }
}
