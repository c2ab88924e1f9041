// Blocking commands a node could not open a dedicated connection for because its endpoint is down
// (seed 000 "Sentinel": before acceptance, commands move to the new primary and are admitted
// there, under their original deadline). Instead of failing at once, such a command waits here
// under its acquire deadline: for the router to move it (a new Sentinel primary), or for the node's
// shared connection to come back, whichever comes first. Nothing was written: moving it is safe.
import {
  RespireAuthenticationError,
  RespireConnectionError,
  type RespireEndpoint,
  RespireTimeoutError,
} from '../../errors.js';
import { clientClosedError, unreachableError } from '../../transport/channel-errors.js';
import type { Command } from '../../transport/command.js';
import type { Clock } from '../../util/clock.js';
import { startTimer, stopTimer, type Timer } from '../../util/timers.js';

export interface BlockingHoldOptions {
  readonly acquireTimeout: number;
  readonly clock: Clock;
  /** The node's endpoint, named by the error of a command the client's close ends. */
  readonly endpoint: RespireEndpoint;
  /** Sends a held command again on this node (its shared connection is back). */
  readonly retry: (command: Command<unknown>) => void;
}

export class BlockingHold {
  private readonly held = new Map<Command<unknown>, Timer>();
  /** Set once the node is replaced: what fails to connect from then on goes there at once. */
  private forward: ((command: Command<unknown>) => void) | undefined;
  private closed = false;

  constructor(private readonly options: BlockingHoldOptions) {}

  /**
   * Holds `command`, whose dedicated connection failed with `error`, when the endpoint being down
   * is the cause and its deadline has not passed; returns false (the caller rejects) otherwise.
   */
  hold(command: Command<unknown>, error: unknown): boolean {
    if (command.settled || !isEndpointDown(error)) return false;
    if (this.forward !== undefined) {
      this.forward(command);
      return true;
    }
    if (this.closed) return false;
    const now = this.options.clock.now();
    // The deadline is set once, here, and kept wherever the command moves.
    if (command.deadline === 0) command.deadline = now + this.options.acquireTimeout;
    const left = command.deadline - now;
    if (left <= 0) return false;
    // On the client's clock (util/timers.ts), unref'd: a deadline alone keeps no process alive.
    // Past it, it fails as a queued command with no connection does (channel-errors.ts), never
    // written, with the connect error as the cause.
    const timer = startTimer(
      this.options.clock,
      () => {
        this.held.delete(command);
        command.reject(unreachableError(this.options.endpoint, error as RespireConnectionError));
      },
      left,
      true,
    );
    this.held.set(command, timer);
    // Aborted while held: let it go at once.
    command.promise.then(
      () => this.release(command),
      () => this.release(command),
    );
    return true;
  }

  /** The shared connection is back: held commands try this node again. */
  retryAll(): void {
    for (const command of this.takeAll()) this.options.retry(command);
  }

  /** The node is replaced: held commands, and any whose connection fails later, go to `forward`. */
  moveTo(forward: (command: Command<unknown>) => void): void {
    this.forward = forward;
    this.moveHeld(forward);
  }

  /** The commands held now go to `forward` (a failover group switched away from a live node). */
  moveHeld(forward: (command: Command<unknown>) => void): void {
    for (const command of this.takeAll()) forward(command);
  }

  /**
   * The node closes (the client's close or destroy: a replaced node moved its commands first):
   * held commands fail as every command the close ends does, not with the connect error.
   */
  close(): void {
    this.closed = true;
    const error = clientClosedError(this.options.endpoint);
    for (const command of [...this.held.keys()]) {
      this.release(command);
      command.reject(error);
    }
  }

  private takeAll(): Command<unknown>[] {
    const commands = [...this.held.keys()];
    for (const command of commands) this.release(command);
    return commands.filter((command) => !command.settled);
  }

  private release(command: Command<unknown>): void {
    const timer = this.held.get(command);
    if (timer === undefined) return;
    stopTimer(this.options.clock, timer);
    this.held.delete(command);
  }
}

/** Nothing was sent and the endpoint could not be reached (refused credentials are not that). */
function isEndpointDown(error: unknown): boolean {
  if (error instanceof RespireAuthenticationError) return false;
  if (error instanceof RespireConnectionError) return error.written === false;
  return error instanceof RespireTimeoutError && error.phase === 'connect';
}
