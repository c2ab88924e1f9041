// Which registry view holds which slots of a SharedCircuitRegistry's table, so that the holds of
// a thread that ended without letting go (`worker.terminate()`, as a pool such as Piscina does when
// it recycles threads; a crash) can be ended by another thread, and workers that come and go do
// not fill the table (issue 15). No message per command and no Atomics.wait: a view that holds
// slots keeps one `Atomics.waitAsync` waiter on its record's wake cell; a thread ends with its
// waiters, so `Atomics.notify` waking none tells another thread that the view is gone.
//
// Every method runs under the table lock (endpoint-table.ts), per connection, never per command.
import type { MonotonicClock } from '../environment.js';
import { H_HOLDER_SERIAL, type Layout, MAX_HOLDERS, R_OWNER, R_WAKE, R_WOKEN, R_WOKEN_AT } from './layout.js';
import { ProbeStamp } from './slot-cells.js';

/** `Atomics.waitAsync` (ES2024, in Node since 16), typed here as the project's lib predates it. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(cells: Int32Array, index: number, value: number): { async: boolean; value: unknown };
  }
).waitAsync;

/**
 * One view's holder record, and the liveness check of the others'. A live view whose thread is
 * busy (a long synchronous run) cannot arm its waiter again after a check woke it: it counts as
 * alive for `timeout` ms after that wake (the registry's `probeTimeout`), so only a thread stopped
 * that long after a check can be taken for gone. Its holds then end, and a slot it still used may
 * be given to another endpoint; set `probeTimeout` well above the longest synchronous run.
 */
export class HolderRecords {
  private own = -1;
  private token = 0;

  constructor(
    private readonly cells: Int32Array,
    private readonly layout: Layout,
    private readonly clock: MonotonicClock,
    private readonly timeout: number,
  ) {}

  /**
   * This view's record, claimed now if it has none (or lost it, taken for gone: its holds have
   * ended), or -1 when every record belongs to a live view.
   */
  ownRecord(): number {
    const cells = this.cells;
    if (this.own >= 0 && Atomics.load(cells, this.cell(this.own, R_OWNER)) === this.token) return this.own;
    this.own = -1;
    for (let record = 0; record < MAX_HOLDERS; record++) {
      if (Atomics.load(cells, this.cell(record, R_OWNER)) !== 0) continue;
      let token = 0;
      while (token === 0) token = (Atomics.add(cells, H_HOLDER_SERIAL, 1) + 1) | 0;
      Atomics.store(cells, this.cell(record, R_WOKEN), 0);
      Atomics.store(cells, this.cell(record, R_OWNER), token);
      this.own = record;
      this.token = token;
      this.arm(record, token);
      return record;
    }
    return -1;
  }

  /** Marks `slot` held by this view's record (from `ownRecord`). */
  mark(slot: number): void {
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
    Atomics.notify(this.cells, this.cell(own, R_WAKE));
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
   * Wakes one of the record's waiters: one woken means its view is alive (it arms a new one when
   * its thread next runs its event loop). None woken means the thread ended, unless a check woke
   * it less than `timeout` ago and it has not run since.
   */
  private isGone(record: number): boolean {
    const cells = this.cells;
    const wokenAt = new ProbeStamp(cells, this.cell(record, R_WOKEN_AT));
    const now = this.clock.now();
    if (Atomics.notify(cells, this.cell(record, R_WAKE), 1) > 0) {
      wokenAt.mark(now);
      Atomics.add(cells, this.cell(record, R_WOKEN), 1);
      return false;
    }
    return Atomics.load(cells, this.cell(record, R_WOKEN)) <= 0 || wokenAt.isStale(now, this.timeout);
  }

  /** Keeps one waiter on the record's wake cell while the record is this view's. */
  private arm(record: number, token: number): void {
    const wake = this.cell(record, R_WAKE);
    const result = waitAsync(this.cells, wake, Atomics.load(this.cells, wake));
    if (!result.async) return;
    void (result.value as Promise<unknown>).then(() => {
      if (Atomics.load(this.cells, this.cell(record, R_OWNER)) !== token) return;
      Atomics.sub(this.cells, this.cell(record, R_WOKEN), 1);
      this.arm(record, token);
    });
  }

  private cell(record: number, cell: number): number {
    return this.layout.recordCell(record, cell);
  }
}
