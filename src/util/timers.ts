// Every timer of the client starts here, on the clock it was given (clock.ts): the global timers
// for the system clock (or a fake one that only tells the time), the clock's own `timers` for a
// simulated one (test/sim), so a simulation runs every deadline, backoff and bound in its own time.
import type { Clock } from './clock.js';

export type Timer = object;

/**
 * Calls `callback` after `delayMs` of `clock` time. `unref`: a pending one alone must not keep the
 * process alive (sockets do that), for deadlines and bounds.
 */
export function startTimer(clock: Clock, callback: () => void, delayMs: number, unref = false): Timer {
  const timers = clock.timers;
  if (timers !== undefined) return timers.set(callback, delayMs);
  const timer = setTimeout(callback, delayMs);
  if (unref) timer.unref();
  return timer;
}

/** Cancels a timer `startTimer` gave for the same clock; undefined is ignored. */
export function stopTimer(clock: Clock, timer: Timer | undefined): void {
  if (timer === undefined) return;
  const timers = clock.timers;
  if (timers !== undefined) timers.clear(timer);
  else clearTimeout(timer as ReturnType<typeof setTimeout>);
}

/** A promise that resolves after `delayMs` of `clock` time. */
export function sleep(clock: Clock, delayMs: number): Promise<void> {
  return new Promise((resolve) => startTimer(clock, resolve, delayMs));
}
