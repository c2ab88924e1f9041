// The endpoint table of a SharedCircuitRegistry: which slot holds which endpoint key, how many
// threads hold each, and the idle-histories rule across threads (BREAKER.md 16: at most
// `maxIdleHistories` slots no thread holds are kept, least recently used evicted first, closed ones
// before open ones). Every change happens under the table lock, per connection, never per command.
import { RespireConfigurationError } from '../../errors.js';
import type { MonotonicClock } from '../environment.js';
import { historyStorage } from '../outcome-history.js';
import { GUARD_OFF } from './circuit-guard.js';
import { HolderRecords } from './holder-records.js';
import {
  H_TABLE_LOCK,
  H_USE_CLOCK,
  type Layout,
  MAX_HOLDERS,
  MAX_KEY_BYTES,
  S_CLOSED_GENERATION,
  S_GENERATION,
  S_GUARD,
  S_KEY_LENGTH,
  S_LAST_USED,
  S_OPEN_UNTIL,
  S_STATE,
  S_STATUS,
  S_TRIPS,
  S_USES,
  STATUS_FREE,
  STATUS_READY,
} from './layout.js';
import { SlotGuard } from './slot-cells.js';
import { CLOSED, type StateWordLayout, stateOf, WHOLE_GENERATION_MASK } from './state-word.js';

const encoder = new TextEncoder();
/** With the `u` flag a surrogate pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * One registry view's access to the table. Each view records the slots it holds (holder-records.ts),
 * so that when no slot is free or idle, the holds of views whose thread has ended are ended first.
 */
export class EndpointTable {
  private readonly bytes: Uint8Array;
  private readonly holders: HolderRecords;
  /**
   * The table lock, held only for a scan of the table: a spin like a circuit's guard, and like it
   * taken over from a holder seen holding it for `probeTimeout` (a worker terminated inside it).
   */
  private readonly tableLock: SlotGuard;

  /** `clock` and `probeTimeout` tell a busy live thread from an ended one (holder-records.ts). */
  constructor(
    private readonly cells: Int32Array,
    private readonly layout: Layout,
    private readonly words: StateWordLayout,
    private readonly maxIdle: number,
    clock: MonotonicClock,
    probeTimeout: number,
  ) {
    this.bytes = new Uint8Array(cells.buffer, 0, layout.totalBytes);
    this.holders = new HolderRecords(cells, layout, clock, probeTimeout);
    this.tableLock = new SlotGuard(cells, H_TABLE_LOCK, clock, probeTimeout);
  }

  /**
   * The slot of `key`, held once more: the one that holds it, else a free one, else the least
   * recently used idle one, evicted. Closed idle slots go before open ones.
   * @throws RespireConfigurationError when every slot is held, or the key is too long.
   */
  hold(key: string): number {
    // A lone surrogate encodes as U+FFFD, so two different keys would find one slot: refused, as a
    // slot shared by two endpoints is (issue 15).
    if (LONE_SURROGATE.test(key))
      throw new RespireConfigurationError(
        'endpoint',
        key,
        'a key of well-formed Unicode (no lone surrogate)',
      );
    const encoded = encoder.encode(key);
    if (encoded.length > MAX_KEY_BYTES)
      throw new RespireConfigurationError('endpoint', key, `a key of at most ${MAX_KEY_BYTES} UTF-8 bytes`);
    this.lock();
    try {
      if (this.holders.ownRecord() < 0) {
        this.reclaimGone();
        if (this.holders.ownRecord() < 0) {
          throw new RespireConfigurationError(
            'SharedCircuitRegistry views',
            MAX_HOLDERS,
            `at most ${MAX_HOLDERS} registry views (attach() or new) holding circuits at once, across threads`,
          );
        }
      }
      const found = this.find(encoded);
      if (found >= 0) {
        Atomics.add(this.cells, this.layout.cell(found, S_USES), 1);
        this.holders.mark(found);
        return found;
      }
      let slot = this.freeSlot();
      if (slot < 0) {
        this.reclaimGone();
        slot = this.freeSlot();
      }
      if (slot < 0) {
        this.holders.releaseIfEmpty();
        throw new RespireConfigurationError(
          'maxEndpoints',
          this.layout.maxEndpoints,
          `more slots than endpoints held at once: all ${this.layout.maxEndpoints} are held, so '${key}' has none (two endpoints never share one)`,
        );
      }
      this.claim(slot, encoded);
      this.holders.mark(slot);
      return slot;
    } finally {
      this.unlock();
    }
  }

  /** This view's holder record (after `hold`): the lane of its shared circuits (circuit-guard.ts). */
  get record(): number {
    return this.holders.record;
  }

  /** This view's hold of `slot` ends; once no view holds it, it is idle, and idle ones beyond the limit go. */
  letGo(slot: number): void {
    this.lock();
    try {
      // False when this view was taken for gone and its holds were ended for it.
      if (!this.holders.unmark(slot)) return;
      this.holders.releaseIfEmpty();
      this.endHold(slot);
      this.evictExcessIdle();
    } finally {
      this.unlock();
    }
  }

  /** Under the lock: the holds of views whose thread ended end (holder-records.ts). */
  private reclaimGone(): void {
    this.holders.reclaimGone((slot) => this.endHold(slot));
    this.evictExcessIdle();
  }

  /** Under the lock: one hold of `slot` ends; with the last, the slot is idle, stamped for LRU. */
  private endHold(slot: number): void {
    if (Atomics.sub(this.cells, this.layout.cell(slot, S_USES), 1) !== 1) return;
    const stamp = Atomics.add(this.cells, H_USE_CLOCK, 1) + 1;
    Atomics.store(this.cells, this.layout.cell(slot, S_LAST_USED), stamp);
  }

  /** Under the lock: idle slots beyond `maxIdle` are evicted, least recently used first. */
  private evictExcessIdle(): void {
    let excess = this.countIdle() - this.maxIdle;
    while (excess-- > 0) this.evict(this.oldestIdle());
  }

  /** Slots holding an endpoint, held or idle. */
  size(): number {
    let size = 0;
    for (let slot = 0; slot < this.layout.maxEndpoints; slot++)
      if (this.status(slot) === STATUS_READY) size++;
    return size;
  }

  idleCount(): number {
    this.lock();
    try {
      return this.countIdle();
    } finally {
      this.unlock();
    }
  }

  private countIdle(): number {
    let idle = 0;
    for (let slot = 0; slot < this.layout.maxEndpoints; slot++) if (this.isIdle(slot)) idle++;
    return idle;
  }

  private find(encoded: Uint8Array): number {
    const { layout, bytes } = this;
    for (let slot = 0; slot < layout.maxEndpoints; slot++) {
      if (this.status(slot) !== STATUS_READY) continue;
      if (this.cells[layout.cell(slot, S_KEY_LENGTH)] !== encoded.length) continue;
      const start = layout.keyByte(slot);
      let same = true;
      for (let i = 0; i < encoded.length && same; i++) same = bytes[start + i] === encoded[i];
      if (same) return slot;
    }
    return -1;
  }

  /** A free slot, else an idle one evicted for it, else -1. */
  private freeSlot(): number {
    for (let slot = 0; slot < this.layout.maxEndpoints; slot++)
      if (this.status(slot) === STATUS_FREE) return slot;
    const victim = this.oldestIdle();
    if (victim >= 0) this.evict(victim);
    return victim;
  }

  /** The least recently used idle slot, closed ones first; -1 when none is idle. */
  private oldestIdle(): number {
    let best = -1;
    let bestRank = Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < this.layout.maxEndpoints; slot++) {
      if (!this.isIdle(slot)) continue;
      const closed = stateOf(Atomics.load(this.cells, this.layout.cell(slot, S_STATE))) === CLOSED;
      const rank = (closed ? 0 : 2 ** 32) + Atomics.load(this.cells, this.layout.cell(slot, S_LAST_USED));
      if (rank < bestRank) {
        bestRank = rank;
        best = slot;
      }
    }
    return best;
  }

  /** Eviction emits nothing; a later request for the key starts a fresh, closed circuit. */
  private evict(slot: number): void {
    Atomics.store(this.cells, this.layout.cell(slot, S_STATUS), STATUS_FREE);
  }

  /**
   * A fresh closed circuit for `encoded` in a slot no thread holds: its generation continues from
   * the slot's last one, so nothing from the slot's previous endpoint can count as current.
   */
  private claim(slot: number, encoded: Uint8Array): void {
    const { layout, cells } = this;
    const stateCell = layout.cell(slot, S_STATE);
    this.resetHistory(slot);
    new Float64Array(cells.buffer, layout.timeByte(slot), 1)[0] = Number.NEGATIVE_INFINITY;
    Atomics.store(cells, layout.cell(slot, S_TRIPS), 0);
    Atomics.store(cells, layout.cell(slot, S_GUARD), GUARD_OFF);
    Atomics.store(cells, layout.cell(slot, S_OPEN_UNTIL), 0);
    Atomics.store(cells, layout.cell(slot, S_OPEN_UNTIL) + 1, 0);
    const generationCell = layout.cell(slot, S_GENERATION);
    const previous = this.words.wholeGeneration(
      Atomics.load(cells, stateCell),
      Atomics.load(cells, generationCell),
    );
    const generation = (previous + 1) & WHOLE_GENERATION_MASK;
    Atomics.store(cells, generationCell, generation);
    Atomics.store(cells, stateCell, this.words.word(CLOSED, generation));
    Atomics.store(cells, layout.cell(slot, S_CLOSED_GENERATION), generation);
    this.bytes.set(encoded, layout.keyByte(slot));
    Atomics.store(cells, layout.cell(slot, S_KEY_LENGTH), encoded.length);
    Atomics.store(cells, layout.cell(slot, S_USES), 1);
    Atomics.store(cells, layout.cell(slot, S_STATUS), STATUS_READY);
  }

  private resetHistory(slot: number): void {
    historyStorage(
      this.layout.maximumSampleCount,
      this.cells.buffer,
      this.layout.historyByte(slot),
    ).counters.fill(0);
  }

  private isIdle(slot: number): boolean {
    return (
      this.status(slot) === STATUS_READY && Atomics.load(this.cells, this.layout.cell(slot, S_USES)) === 0
    );
  }

  private status(slot: number): number {
    return Atomics.load(this.cells, this.layout.cell(slot, S_STATUS));
  }

  private lock(): void {
    this.tableLock.lock();
  }

  private unlock(): void {
    this.tableLock.unlock();
  }
}
