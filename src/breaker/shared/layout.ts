// Where everything lives in a SharedCircuitRegistry's SharedArrayBuffer (API.md "Circuits shared
// across worker threads"): a header with the fixed options, then one slot per endpoint holding its
// key, its state word, its guard and its exact outcome ring. Offsets only; no behaviour.

import type { ResolvedCircuitBreakerOptions } from '../options.js';
import { historyBytes } from '../outcome-history.js';

/** 'RSPC': tells a registry buffer from any other SharedArrayBuffer. */
export const MAGIC = 0x52535043;
/** Bumped when the layout changes: a buffer from another version of respire is refused. */
export const LAYOUT_VERSION = 5;

/** Header cells (Int32 indexes). */
export const H_MAGIC = 0;
export const H_VERSION = 1;
export const H_MAX_ENDPOINTS = 2;
export const H_MAX_IDLE = 3;
/** The table lock: held while a slot is claimed, looked up, released or evicted; never per command. */
export const H_TABLE_LOCK = 4;
/** A counter stamped on a slot when it is last let go of, for least-recently-used eviction. */
export const H_USE_CLOCK = 5;
/** The last holder token given out (holder-records.ts): each view's record gets a new one. */
export const H_HOLDER_SERIAL = 6;
/** Byte offset of the registry's `probeTimeout`, a Float64 (after the Int32 cells above). */
export const PROBE_TIMEOUT_BYTE = 32;
/** Byte offset of the options, as Float64 values in `OPTION_ORDER`. */
const OPTIONS_BYTE = 40;

/** The options, in their header order. */
export const OPTION_ORDER = [
  'failureRateThreshold',
  'minimumFailureCount',
  'samplingWindow',
  'maximumSampleCount',
  'openDuration',
  'halfOpenProbeCount',
  'openDurationMultiplier',
  'maxOpenDuration',
  'openDurationJitter',
] as const satisfies readonly (keyof ResolvedCircuitBreakerOptions)[];

const HEADER_BYTES = align8(OPTIONS_BYTE + OPTION_ORDER.length * 8);

/** Slot cells (Int32 indexes from the slot's first cell). */
export const S_STATUS = 0;
/** Threads holding the slot (each counts once, while it has leases or admissions in flight). */
export const S_USES = 1;
export const S_LAST_USED = 2;
export const S_KEY_LENGTH = 3;
/** The state word (state-word.ts): changed only by compareExchange. */
export const S_STATE = 4;
/**
 * The guard of the history and of the fields a transition writes, and the closed successes counted
 * without it (circuit-guard.ts): negative while held.
 */
export const S_GUARD = 5;
/** The open deadline as the two Int32 halves of a Float64, written before the state word says open. */
export const S_OPEN_UNTIL = 6;
export const S_TRIPS = 8;
/** The slot's recent whole generation (state-word.ts `wholeGeneration`), stored after each transition. */
export const S_GENERATION = 9;
/**
 * When the latest probe of a half-open round was taken (slot-cells.ts `ProbeStamp`): written
 * before the exchange that takes it, so a thread that sees every probe slot taken sees that time
 * or a later one.
 */
export const S_PROBE_TAKEN = 10;
/**
 * The whole generation while the circuit is closed, -1 otherwise: what a closed admission reads,
 * one atomic load giving both the state and the ticket's generation (shared-circuit.ts
 * `tryAdmit`). The state word stays the truth; this cell never says closed at a
 * generation the word is not closed at, but may say -1 a moment longer than it must.
 */
export const S_CLOSED_GENERATION = 11;
const SLOT_CELLS = 12;

/**
 * Holder records (holder-records.ts): one per registry view that holds slots, so that the holds of
 * a thread that ended can be found and ended. Cells (Int32 indexes from the record's first cell),
 * then a bitmap of the slots the view holds, one bit per slot.
 */
export const MAX_HOLDERS = 256;
/** The view's token, 0 when the record is free. */
export const R_OWNER = 0;
/** The cell the view keeps an `Atomics.waitAsync` waiter on: how another thread sees it is alive. */
export const R_WAKE = 1;
/** When a liveness check last found the view alive (slot-cells.ts `ProbeStamp`). */
export const R_CHECKED = 2;
const RECORD_CELLS = 3;

export const STATUS_FREE = 0;
export const STATUS_READY = 1;

/** Longest endpoint key, in UTF-8 bytes (`host:port`; a host name is at most 253). */
export const MAX_KEY_BYTES = 256;

/** Registry views (by holder record) whose closed successes may skip the guard (circuit-guard.ts). */
export const SUCCESS_LANES = 8;
/** Successes a lane holds before a success takes the guard (and appends them to the ring). */
export const LANE_ENTRIES = 30;
/** Bytes of a slot's staging times: a row of `LANE_ENTRIES` Float64 per lane. */
export const STAGING_BYTES = SUCCESS_LANES * LANE_ENTRIES * 8;

/** Byte offsets inside one slot. */
const TIME_BYTE = align8(SLOT_CELLS * 4);
/** The times of closed successes recorded without the guard (circuit-guard.ts), a row per lane. */
const STAGING_BYTE = TIME_BYTE + 8;
const KEY_BYTE = STAGING_BYTE + STAGING_BYTES;
const HISTORY_BYTE = align8(KEY_BYTE + MAX_KEY_BYTES);

function align8(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

/** Byte positions of one registry's parts, from its endpoint count and ring size. */
export class Layout {
  readonly slotBytes: number;
  readonly totalBytes: number;
  /** Int32 cells of one holder record: its cells and its slot bitmap. */
  readonly recordCells: number;
  /** Byte offset of the first slot, after the holder records. */
  private readonly slotsByte: number;

  constructor(
    readonly maxEndpoints: number,
    readonly maximumSampleCount: number,
  ) {
    this.recordCells = RECORD_CELLS + Math.ceil(maxEndpoints / 32);
    this.slotsByte = align8(HEADER_BYTES + MAX_HOLDERS * this.recordCells * 4);
    this.slotBytes = align8(HISTORY_BYTE + historyBytes(maximumSampleCount));
    this.totalBytes = this.slotsByte + maxEndpoints * this.slotBytes;
  }

  /** Int32 index of the holder record's cell `cell` (`RECORD_CELLS` and up: its bitmap's words). */
  recordCell(record: number, cell: number): number {
    return HEADER_BYTES / 4 + record * this.recordCells + cell;
  }

  /** Int32 index of the bitmap word holding `slot`'s bit in the record. */
  holdCell(record: number, slot: number): number {
    return this.recordCell(record, RECORD_CELLS + (slot >>> 5));
  }

  /** Byte offset of the slot's first cell. */
  slotByte(slot: number): number {
    return this.slotsByte + slot * this.slotBytes;
  }

  /** Int32 index of the slot's cell `cell`. */
  cell(slot: number, cell: number): number {
    return this.slotByte(slot) / 4 + cell;
  }

  /** Byte offset of the slot's latest-time Float64 (the history's clamped clock, BREAKER.md 4). */
  timeByte(slot: number): number {
    return this.slotByte(slot) + TIME_BYTE;
  }

  /** Byte offset of the slot's staging times (circuit-guard.ts). */
  stagingByte(slot: number): number {
    return this.slotByte(slot) + STAGING_BYTE;
  }

  keyByte(slot: number): number {
    return this.slotByte(slot) + KEY_BYTE;
  }

  historyByte(slot: number): number {
    return this.slotByte(slot) + HISTORY_BYTE;
  }
}

/** Writes the options into a new buffer's header. */
export function writeOptions(buffer: SharedArrayBuffer, options: ResolvedCircuitBreakerOptions): void {
  const values = new Float64Array(buffer, OPTIONS_BYTE, OPTION_ORDER.length);
  OPTION_ORDER.forEach((name, i) => {
    values[i] = options[name];
  });
}

/** The options a buffer's header holds, by name (validated again by the caller). */
export function readOptions(buffer: SharedArrayBuffer): Record<(typeof OPTION_ORDER)[number], number> {
  const values = new Float64Array(buffer, OPTIONS_BYTE, OPTION_ORDER.length);
  return Object.fromEntries(OPTION_ORDER.map((name, i) => [name, values[i]!])) as Record<
    (typeof OPTION_ORDER)[number],
    number
  >;
}

export { HEADER_BYTES };
