// Waiters for the next connection a Channel (channel.ts) takes, or for its close. A MOVING can be
// read on a connection whose handshake has not finished yet (it arrives right behind the last
// handshake reply, in the same read): its handoff (maintenance/handoff.ts) then waits for the
// channel to take that connection before it can replace it.
import type { Connection } from './connection.js';

export class NextConnection {
  private waiters: ((connection: Connection | undefined) => void)[] = [];

  /** Resolves with the next connection told, or undefined once the channel closes. */
  wait(): Promise<Connection | undefined> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The channel took `connection`, or closes (undefined): every waiter is told. */
  tell(connection: Connection | undefined): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake(connection);
  }
}
