// The table of admissions in flight: allocation-free tickets that carry the generation of the state
// that admitted them and can be completed exactly once (BREAKER.md 11 and 12).
import { AdmitRejection } from './admission.js';

const SLOT_BITS = 19;
/** Most admissions one breaker can have in flight. */
export const MAX_ADMISSIONS_IN_FLIGHT = 2 ** SLOT_BITS;
const SLOT_MASK = MAX_ADMISSIONS_IN_FLIGHT - 1;
/** Serials use the remaining 11 bits, so that a ticket stays below 2^30 (a small integer in V8). */
const SERIAL_MASK = 2 ** (30 - SLOT_BITS) - 1;
const INITIAL_SLOTS = 16;
/** Marks a free slot in `generations`. */
const FREE = -1;

/**
 * A ticket is `serial << 19 | slot`, an integer from 0 through 2^30 - 1, which V8 keeps unboxed:
 * storing one in a command record allocates nothing. Completing a ticket frees its slot and bumps
 * the slot's serial, so completing it again, or completing a ticket never issued, matches nothing
 * and is a no-op. Free slots are reused oldest-freed first, so a slot's serial comes round again
 * only after 2048 reuses of that slot: 2048 × (free slots) admissions, so 2048 × 16 or more when
 * nothing else is in flight, but as few as 2048 while every other slot is held. A caller that keeps
 * tickets must forget one once it is completed. Slots grow by doubling (amortised, the only
 * allocation).
 */
export class AdmissionSlots {
  private serials = new Int32Array(INITIAL_SLOTS);
  /** The generation that admitted the slot's ticket, or `FREE`. */
  private generations = new Int32Array(INITIAL_SLOTS).fill(FREE);
  /** FIFO ring of free slot indexes: `freeCount` of them, starting at `freeHead`. */
  private freeSlots = Int32Array.from({ length: INITIAL_SLOTS }, (_, i) => i);
  private freeHead = 0;
  private freeCount = INITIAL_SLOTS;
  /** Tickets issued and not yet redeemed. */
  inFlight = 0;

  /**
   * Takes a slot for an admission by `generation` (0 through 2^31 - 1) and returns its ticket, or
   * `AdmitRejection.Saturated` when `MAX_ADMISSIONS_IN_FLIGHT` are in flight (never a throw: the
   * client admits inside a flush, where a throw would be uncaught).
   */
  issue(generation: number): number {
    if (this.freeCount === 0) {
      if (this.serials.length === MAX_ADMISSIONS_IN_FLIGHT) return AdmitRejection.Saturated;
      this.grow();
    }
    const slot = this.freeSlots[this.freeHead]!;
    this.freeHead = (this.freeHead + 1) & (this.freeSlots.length - 1);
    this.freeCount--;
    this.generations[slot] = generation;
    this.inFlight++;
    return (this.serials[slot]! << SLOT_BITS) | slot;
  }

  /** The generation that admitted a ticket in flight, or -1 (see `redeem`); changes nothing. */
  generationOf(ticket: number): number {
    // `ticket >>> 0 !== ticket` rejects fractions, negatives, NaN and values of 2^32 and above. A
    // value from 2^30 up has `ticket >>> SLOT_BITS` above SERIAL_MASK, so it matches no serial below.
    if (ticket >>> 0 !== ticket) return -1;
    const slot = ticket & SLOT_MASK;
    const generation = this.generations[slot];
    if (generation === undefined || generation === FREE || this.serials[slot] !== ticket >>> SLOT_BITS)
      return -1;
    return generation;
  }

  /**
   * Frees the ticket's slot and returns the generation that admitted it, or -1 when the ticket is
   * not in flight (already redeemed, never issued, or not a ticket at all).
   */
  redeem(ticket: number): number {
    const generation = this.generationOf(ticket);
    if (generation < 0) return -1;
    const slot = ticket & SLOT_MASK;
    this.serials[slot] = (this.serials[slot]! + 1) & SERIAL_MASK;
    this.generations[slot] = FREE;
    this.freeSlots[(this.freeHead + this.freeCount) & (this.freeSlots.length - 1)] = slot;
    this.freeCount++;
    this.inFlight--;
    return generation;
  }

  private grow(): void {
    const size = this.serials.length;
    const serials = new Int32Array(size * 2);
    serials.set(this.serials);
    const generations = new Int32Array(size * 2).fill(FREE);
    generations.set(this.generations);
    // Every old slot is taken (no slot is free), so the free ones are exactly the new half.
    const freeSlots = new Int32Array(size * 2);
    for (let i = 0; i < size; i++) freeSlots[i] = size + i;
    this.serials = serials;
    this.generations = generations;
    this.freeSlots = freeSlots;
    this.freeHead = 0;
    this.freeCount = size;
  }
}
