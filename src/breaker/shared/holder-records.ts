// Which registry view holds which slots of a SharedCircuitRegistry's table, so that the holds of
// a thread that ended without letting go (`worker.terminate()`, as a pool such as Piscina does when
// it recycles threads; a crash) can be ended by another thread, and workers that come and go do
// not fill the table (issue 15). No message per command and no Atomics.wait: a view that holds
// slots keeps one `Atomics.waitAsync` waiter on its record's wake cell; a thread ends with its
// waiters, so `Atomics.notify` waking none tells another thread that the view is gone.
//
// Every method runs under the table lock (endpoint-table.ts), per connection, never per command.
import type { MonotonicClock } from '../environment.js';
import { H_HOLDER_SERIAL, type Layout, MAX_HOLDERS, R_CHECKED, R_OWNER, R_WAKE } from './layout.js';

/** `Atomics.waitAsync` (ES2024, in Node since 16), typed here as the project's lib predates it. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(cells: Int32Array, index: number, value: number): { async: boolean; value: unknown };
  }
).waitAsync;

/**
 * One view's holder record, and the liveness check of the others'. A view found alive is not
 * checked again for `timeout` ms (the registry's `probeTimeout`), so a full table costs each live
 * thread at most one wake per `timeout`, however often it is asked for a slot. A thread busy in a
 * long synchronous run cannot arm its waiter again after a check woke it: only one that has not run
 * for `timeout` after a check can be taken for gone. Its holds then end, and a slot it still used
 * may be given to another endpoint; keep `probeTimeout` well above the longest synchronous run.
 */
export class HolderRecords {
  private own = -1;
  private token = 0;
  /** Whether this view's waiter is armed: from its first hold, so a refused ask arms nothing. */
  private armed = false;

  /** This view's record, or -1. */
  get record(): number {
    return this.own;
  }

  constructor(
    private readonly cells: Int32Array,
    private readonly layout: Layout,
    private readonly clock: MonotonicClock,
    private readonly timeout: number,
  ) {}

  /**
   * This view's record, claimed now if it has none (or lost it, taken for gone: its holds have
   * ended), or -1 when every record belongs to a live view. A record claimed now is armed by the
   * first `mark`, in the same locked section, so no other thread sees it unarmed.
   */
  ownRecord(): number {
    const cells = this.cells;
    if (this.own >= 0 && Atomics.load(cells, this.cell(this.own, R_OWNER)) === this.token) return this.own;
    this.own = -1;
    for (let record = 0; record < MAX_HOLDERS; record++) {
      if (Atomics.load(cells, this.cell(record, R_OWNER)) !== 0) continue;
      let token = 0;
      while (token === 0) token = (Atomics.add(cells, H_HOLDER_SERIAL, 1) + 1) | 0;
      // Never checked: the first check wakes it.
      this.stamp(record, this.clock.now() - this.timeout - 1);
      Atomics.store(cells, this.cell(record, R_OWNER), token);
      this.own = record;
      this.token = token;
      this.armed = false;
      return record;
    }
    return -1;
  }

  /** Marks `slot` held by this view's record (from `ownRecord`). */
  mark(slot: number): void {
    if (!this.armed) {
      this.armed = true;
      this.arm(this.own, this.token);
    }
    Atomics.or(this.cells, this.layout.holdCell(this.own, slot), 1 << (slot & 31));
  }

  /**
   * Unmarks `slot`; false when this view's record no longer holds it (the record was taken for
   * gone and its holds ended): the caller must not end the hold again.
   */
  unmark(slot: number): boolean {
    if (this.own < 0 || Atomics.load(this.cells, this.cell(this.own, R_OWNER)) !== this.token) return false;
    const bit = 1 << (slot & 31);
    return (Atomics.and(this.cells, this.layout.holdCell(this.own, slot), ~bit) & bit) !== 0;
  }

  /** Frees this view's record once it holds nothing; its waiter is woken and not armed again. */
  releaseIfEmpty(): void {
    const own = this.own;
    if (own < 0) return;
    for (let slot = 0; slot < this.layout.maxEndpoints; slot += 32)
      if (Atomics.load(this.cells, this.layout.holdCell(own, slot)) !== 0) return;
    this.own = -1;
    Atomics.store(this.cells, this.cell(own, R_OWNER), 0);
    if (this.armed) Atomics.notify(this.cells, this.cell(own, R_WAKE));
  }

  /** Ends the records of views that are gone, calling `endHold(slot)` for each slot one held. */
  reclaimGone(endHold: (slot: number) => void): void {
    const { cells, layout } = this;
    for (let record = 0; record < MAX_HOLDERS; record++) {
      if (record === this.own || Atomics.load(cells, this.cell(record, R_OWNER)) === 0) continue;
      if (!this.isGone(record)) continue;
      for (let slot = 0; slot < layout.maxEndpoints; slot += 32) {
        const held = Atomics.exchange(cells, layout.holdCell(record, slot), 0);
        for (let bit = 0; bit < 32; bit++) if ((held & (1 << bit)) !== 0) endHold(slot + bit);
      }
      Atomics.store(cells, this.cell(record, R_OWNER), 0);
    }
  }

  /**
   * Alive when found alive less than `timeout` ago; else its waiter is woken: one woken means
   * alive (it arms a new one when its thread next runs its event loop), none means gone.
   */
  private isGone(record: number): boolean {
    const now = this.clock.now();
    // In whole milliseconds modulo 2^32, as slot-cells.ts `ProbeStamp`; a negative age is one
    // that wrapped (24 days and more), so stale.
    const age = ((Math.floor(now) | 0) - Atomics.load(this.cells, this.cell(record, R_CHECKED))) | 0;
    if (age >= 0 && age < this.timeout) return false;
    if (Atomics.notify(this.cells, this.cell(record, R_WAKE), 1) === 0) return true;
    this.stamp(record, now);
    return false;
  }

  private stamp(record: number, time: number): void {
    Atomics.store(this.cells, this.cell(record, R_CHECKED), Math.floor(time) | 0);
  }

  /** Keeps one waiter on the record's wake cell while the record is this view's. */
  private arm(record: number, token: number): void {
    const wake = this.cell(record, R_WAKE);
    const result = waitAsync(this.cells, wake, Atomics.load(this.cells, wake));
    if (!result.async) return;
    void (result.value as Promise<unknown>).then(() => {
      if (Atomics.load(this.cells, this.cell(record, R_OWNER)) === token) this.arm(record, token);
    });
  }

  private cell(record: number, cell: number): number {
    return this.layout.recordCell(record, cell);
  }
}
