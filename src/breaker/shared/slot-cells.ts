// Small pieces of a shared registry: the endpoint table's lock (a compareExchange spin lock, never
// Atomics.wait; a circuit's guard, circuit-guard.ts, spins the same way), a slot's open deadline (a
// Float64 kept as two Int32 halves, since Atomics stores integers only) and the time its latest
// probe was taken. shared-circuit.ts says when each is used and why that is safe.

import { threadId } from 'node:worker_threads';
import type { MonotonicClock } from '../environment.js';

/** Splits and joins a Float64 into the two Int32 halves Atomics can store; one per thread. */
const halves = new Int32Array(2);
const joined = new Float64Array(halves.buffer);

/** This thread's part of every guard token, so that no two threads hold a guard with one token. */
const THREAD_BITS = (threadId & 0x3ff) << 20;
/** Spins between two clock readings of a thread waiting for a guard. */
export const SPINS_PER_READING = 1024;
let serial = 0;

/** A new token for a guard holding: this thread's bits and a serial (never 0, below 2^30). */
export function guardToken(): number {
  serial = (serial + 1) & 0xfffff || 1;
  return THREAD_BITS | serial;
}

/**
 * The endpoint table's lock (endpoint-table.ts): held for one scan of the table, so a spin, not a
 * wait. The cell holds the holder's token (its thread and a serial), 0 when free. A thread ended
 * while it held the lock (`worker.terminate()`, a crash) would leave it held for good: a waiter
 * that sees one token hold it for `timeout` ms of its own clock takes it from it (BREAKER.md 12
 * applied to the lock). A circuit's guard (circuit-guard.ts) is taken over the same way.
 */
export class SlotGuard {
  /** `clock` is read only while waiting, so it must move within a synchronous run (no turn cache). */
  constructor(
    private readonly cells: Int32Array,
    private readonly cell: number,
    private readonly clock: MonotonicClock,
    private readonly timeout: number,
  ) {}

  lock(): void {
    const token = guardToken();
    if (Atomics.compareExchange(this.cells, this.cell, 0, token) !== 0) this.wait(token);
  }

  /**
   * Lets go of the guard: a store, as cheap as the guard can be. A holder whose guard was taken
   * from it (alive after all, stopped for `timeout`) would let the new holder's go too; that
   * holder already ran beside it, which is why `timeout` must be long.
   */
  unlock(): void {
    Atomics.store(this.cells, this.cell, 0);
  }

  /**
   * Spins as a plain compareExchange loop, reading the clock and the holder's token between
   * rounds. A thread's serial comes round again only after 2^20 holdings, far more than fit
   * between two readings, so one token seen at every reading for `timeout` held the guard all
   * that time.
   */
  private wait(token: number): void {
    let holder = -1;
    let since = 0;
    for (;;) {
      for (let spins = 0; spins < SPINS_PER_READING; spins++)
        if (Atomics.compareExchange(this.cells, this.cell, 0, token) === 0) return;
      const seen = Atomics.load(this.cells, this.cell);
      const now = this.clock.now();
      if (seen !== holder) {
        holder = seen;
        since = now;
      } else if (now - since >= this.timeout) {
        if (Atomics.compareExchange(this.cells, this.cell, holder, token) === holder) return;
      }
    }
  }
}

/**
 * The open deadline of one slot. Written only inside the slot's guard, before the state word says
 * open; read without the guard, vouched for by an unchanged state word read after it.
 */
export class OpenDeadline {
  constructor(
    private readonly cells: Int32Array,
    private readonly cell: number,
  ) {}

  read(): number {
    halves[0] = Atomics.load(this.cells, this.cell);
    halves[1] = Atomics.load(this.cells, this.cell + 1);
    return joined[0]!;
  }

  write(deadline: number): void {
    joined[0] = deadline;
    Atomics.store(this.cells, this.cell, halves[0]!);
    Atomics.store(this.cells, this.cell + 1, halves[1]!);
  }
}

/**
 * When the latest probe of a slot's half-open round was taken, in whole milliseconds modulo 2^32:
 * one Int32, so that threads taking probes at once store it without a guard and no reader sees
 * half of one store. Ages are differences modulo 2^32, right while they are below 2^31 ms (24 days;
 * `probeTimeout` is at most 2^30). Every probe taker stores its reading before its exchange, so the
 * cell is at least the time of the take that filled the round, up to one turn of a thread's cached
 * clock (util/turn-clock.ts).
 */
export class ProbeStamp {
  constructor(
    private readonly cells: Int32Array,
    private readonly cell: number,
  ) {}

  /** Before the exchange that takes a probe (or starts a round) at `now`. */
  mark(now: number): void {
    Atomics.store(this.cells, this.cell, Math.floor(now) | 0);
  }

  /** Whether the latest probe was taken `timeout` ms or more before `now`. */
  isStale(now: number, timeout: number): boolean {
    const age = ((Math.floor(now) | 0) - Atomics.load(this.cells, this.cell)) | 0;
    return age >= timeout;
  }
}
