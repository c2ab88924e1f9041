// The commands of a Channel (channel.ts) not yet written: its send queue, bounded by
// `maxPendingCommands`, and the waiters for room in it (bounded by that again), with the wake-up of
// close() once both are empty. The channel decides what to write, move or fail; this only keeps
// them, in order.
import { RingQueue } from '../util/ring-queue.js';
import { type Command, CommandState } from './command.js';

export class UnwrittenCommands {
  readonly queue = new RingQueue<Command<unknown>>(64);
  /** Commands waiting for room in `queue`. */
  readonly waiters = new RingQueue<Command<unknown>>(16);
  private drainWaiters: (() => void)[] = [];

  get empty(): boolean {
    return this.queue.length === 0 && this.waiters.length === 0;
  }

  /** Takes out the queued (not settled) commands `pick` selects, queue then waiters, in order. */
  extract(pick: (command: Command<unknown>) => boolean): Command<unknown>[] {
    const queued = (command: Command<unknown>) => command.state === CommandState.Queued && pick(command);
    const taken = [...this.queue.extract(queued), ...this.waiters.extract(queued)];
    this.notifyDrained();
    return taken;
  }

  /** Empties the queue and the waiters, handing each live command to `each`, in order. */
  drain(each: (command: Command<unknown>) => void): void {
    for (const queue of [this.queue, this.waiters]) {
      for (let command = queue.shift(); command !== undefined; command = queue.shift()) {
        if (command.state !== CommandState.Settled) each(command);
      }
    }
    this.notifyDrained();
  }

  /** Resolves once nothing is queued or waiting for room. */
  drained(): Promise<void> {
    if (this.empty) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Wakes drained() once nothing is queued or waiting. */
  notifyDrained(): void {
    if (this.drainWaiters.length === 0 || !this.empty) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
  }
}
