// A shared circuit's guard, and the successes recorded without it. The guard cell (layout.ts
// `S_GUARD`) is negative while a thread holds the guard (the history, the trip test and the fields
// a transition writes change only then); free, it also says whether a closed success may skip the
// guard, and holds the successes recorded so, not yet in the ring. shared-circuit.ts says when
// each part is used.
//
// Why: on Node 20 every Atomics call costs 5 to 11 ns, about what a whole admit+success costs the
// single-thread circuit, and a success through the guard takes three (its exchange, the closed
// generation's load, its release). A success recorded here takes one compareExchange.
//
// Free value, low bits to high: pending successes (5 bits: up to `LANE_ENTRIES`, 30; 31 = this
// path is off), the lane they were written in (3 bits: `SUCCESS_LANES`, 8), the closed
// generation's low 23 bits (the tag). The path is on only while the circuit is closed: the guard's
// holder turns it on when it lets go of a closed circuit, with the generation it is closed at, and
// every transition out of closed is made by a holder, so a free value with a ticket's tag says the
// circuit is still closed at that generation, unless the ticket is a multiple of 2^23 generations
// older (tickets carry 31 bits; this path compares 23, the bound the README states).
//
// Each success keeps its own time (BREAKER.md 1): its thread writes the time into its lane (a row
// of the slot's staging times, one per registry view whose holder record is below
// `SUCCESS_LANES`, written only by that view's handle), then counts it in with one
// compareExchange. Only one lane has successes pending at a time (another lane's success takes the
// guard), so the count also says which row to read. The next holder takes the pending successes
// with the guard, in the same exchange, and appends them to the ring in order before anything
// else, each at its time clamped by the circuit's (BREAKER.md 4): what recording each one inside
// the guard at its exchange would have done, since nothing reads the ring but a holder.

import type { MonotonicClock } from '../environment.js';
import type { OutcomeHistory } from '../outcome-history.js';
import type { SharedCircuitContext } from './circuit-context.js';
import { LANE_ENTRIES, S_CLOSED_GENERATION, S_GUARD, STAGING_BYTES, SUCCESS_LANES } from './layout.js';
import { guardToken, SPINS_PER_READING } from './slot-cells.js';

/** The count bits of a free value: `LANE_ENTRIES` (30) must stay below `OFF`. */
const COUNT_MASK = 0x1f;
/** The count of a free value with this path off (the circuit is not closed, or not known to be). */
const OFF = 31;
/** The guard free, with no success skipping it: a slot's guard when its endpoint is claimed. */
export const GUARD_OFF = OFF;
const LANE_SHIFT = 5;
/** The lane bits of a free value: `SUCCESS_LANES` (8) lanes. */
const LANE_MASK = 0x7 << LANE_SHIFT;
const TAG_SHIFT = 8;
/** The tag bits of a free value: a closed generation's low 23 bits. */
const TAG_MASK = 0x7fffff << TAG_SHIFT;
/** Set in every held value (with the holder's token), so held values are negative. */
const HELD = 0x80000000 | 0;

/** What a guard takes from its circuit's context. */
type GuardContext = Pick<SharedCircuitContext, 'buffer' | 'cells' | 'layout' | 'waitClock' | 'probeTimeout'>;

/** A closed generation's tag, as it stands in a free value. */
function tagOf(generation: number): number {
  return (generation << TAG_SHIFT) & TAG_MASK;
}

/**
 * One handle's access to its slot's guard: a compareExchange spin, never `Atomics.wait`, taken
 * over from a holder whose token stays the same for `timeout` ms (a thread ended inside it; its
 * pending successes are lost with it). The handle keeps the free value it last wrote or saw, its
 * first guess at the cell, exact while no other thread took the guard since.
 */
export class CircuitGuard {
  private seen = OFF;
  private lane: number;
  private readonly cells: Int32Array;
  private readonly cell: number;
  private readonly closedCell: number;
  /** The slot's staging times, a row of `LANE_ENTRIES` per lane. */
  private readonly staging: Float64Array;
  private readonly clock: MonotonicClock;
  private readonly timeout: number;

  /**
   * `lane` is the view's holder record, or -1 (no lane); `history` the slot's ring; `time[0]` the
   * thread's clamped clock reading, the time of a success recorded here.
   */
  constructor(
    context: GuardContext,
    slot: number,
    lane: number,
    private readonly history: OutcomeHistory,
    private readonly time: Float64Array,
  ) {
    const { cells, layout } = context;
    this.cells = cells;
    this.cell = layout.cell(slot, S_GUARD);
    this.closedCell = layout.cell(slot, S_CLOSED_GENERATION);
    this.staging = new Float64Array(context.buffer, layout.stagingByte(slot), STAGING_BYTES / 8);
    this.clock = context.waitClock;
    this.timeout = context.probeTimeout;
    this.lane = lane >= 0 && lane < SUCCESS_LANES ? lane : -1;
  }

  /**
   * Records a success of a closed `generation` at `time[0]` without the guard, when the cell says
   * the circuit is closed at that generation and the lane has room; false when it must take the
   * guard. Linearized at the exchange that counts it in.
   */
  trySuccess(generation: number): boolean {
    const lane = this.lane;
    if (lane < 0) return false;
    const tag = tagOf(generation);
    const mine = tag | (lane << LANE_SHIFT);
    const cells = this.cells;
    for (let free = this.seen; ; ) {
      const count = free & COUNT_MASK;
      if (
        free < 0 ||
        count >= LANE_ENTRIES ||
        (free & TAG_MASK) !== tag ||
        (count !== 0 && (free & LANE_MASK) !== lane << LANE_SHIFT)
      )
        return false;
      // Not a pending entry: this lane's count only grows by this handle, and `free` is either
      // what this handle last wrote or what the cell held, so the lane holds `count` or fewer.
      this.staging[lane * LANE_ENTRIES + count] = this.time[0]!;
      const next = mine | (count + 1);
      const found = Atomics.compareExchange(cells, this.cell, free, next);
      if (found === free) {
        this.seen = next;
        return true;
      }
      free = found;
    }
  }

  /**
   * Takes the guard, then appends the successes that skipped it to the ring, before anything else
   * reads it: in order, each at its time clamped by the circuit's (BREAKER.md 4).
   */
  lock(): void {
    const held = HELD | guardToken();
    let taken: number;
    for (let free = this.seen; ; free = taken) {
      taken = Atomics.compareExchange(this.cells, this.cell, free, held);
      if (taken === free) break;
      if (taken < 0) {
        taken = this.wait(held);
        break;
      }
    }
    const count = taken & COUNT_MASK;
    if (count !== OFF && count !== 0) {
      const row = ((taken & LANE_MASK) >>> LANE_SHIFT) * LANE_ENTRIES;
      this.history.recordSuccesses(this.staging, row, count);
    }
  }

  /**
   * Lets go of the guard: a store. `closedGeneration` is the generation the circuit is closed at
   * now, -1 when it is not, or left out to read it (its cell is exact inside the guard): only a
   * closed circuit lets successes skip the guard.
   */
  unlock(closedGeneration = Atomics.load(this.cells, this.closedCell)): void {
    const free =
      closedGeneration < 0 ? OFF : tagOf(closedGeneration) | (Math.max(this.lane, 0) << LANE_SHIFT);
    this.seen = free;
    Atomics.store(this.cells, this.cell, free);
  }

  /** The handle is let go of (its view may give its lane to another handle): no more lane. */
  retire(): void {
    this.lane = -1;
  }

  /**
   * Spins until the guard is free, reading the clock and the holder's token between rounds; returns
   * the free value taken, or `OFF` after a takeover (the holder's pending successes are lost).
   */
  private wait(held: number): number {
    const cells = this.cells;
    let holder = 0;
    let since = 0;
    for (;;) {
      for (let spins = 0; spins < SPINS_PER_READING; spins++) {
        const free = Atomics.load(cells, this.cell);
        if (free >= 0 && Atomics.compareExchange(cells, this.cell, free, held) === free) return free;
      }
      const found = Atomics.load(cells, this.cell);
      if (found >= 0) continue;
      const now = this.clock.now();
      if (found !== holder) {
        holder = found;
        since = now;
      } else if (now - since >= this.timeout) {
        if (Atomics.compareExchange(cells, this.cell, holder, held) === holder) return OFF;
      }
    }
  }
}
