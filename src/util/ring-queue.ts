// A FIFO over one growable array with head/tail cursors (STYLE.md "Hot path": no node object per
// entry, O(1) push and shift). Capacity is a power of two so an index wraps with a mask.

export class RingQueue<T> {
  private slots: (T | undefined)[];
  private head = 0;
  private size = 0;
  private mask: number;

  constructor(initialCapacity = 16) {
    let capacity = 4;
    while (capacity < initialCapacity) capacity *= 2;
    this.slots = new Array<T | undefined>(capacity);
    this.mask = capacity - 1;
  }

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    if (this.size === this.slots.length) this.grow();
    this.slots[(this.head + this.size) & this.mask] = item;
    this.size++;
  }

  /** Removes and returns the oldest entry, or undefined when empty. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.size--;
    return item;
  }

  /** The oldest entry without removing it. */
  peek(): T | undefined {
    return this.size === 0 ? undefined : this.slots[this.head];
  }

  /** The entry `index` places after the oldest (0 = oldest). */
  at(index: number): T | undefined {
    return index < this.size ? this.slots[(this.head + index) & this.mask] : undefined;
  }

  /** Removes the entries for which `keep` returns false, preserving order. O(n). */
  filter(keep: (item: T) => boolean): void {
    const count = this.size;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const item = this.slots[(this.head + i) & this.mask] as T;
      if (keep(item)) this.slots[(this.head + kept++) & this.mask] = item;
    }
    for (let i = kept; i < count; i++) this.slots[(this.head + i) & this.mask] = undefined;
    this.size = kept;
  }

  /** Removes the entries `pick` returns true for, preserving order, and returns them. O(n). */
  extract(pick: (item: T) => boolean): T[] {
    const picked: T[] = [];
    this.filter((item) => {
      if (!pick(item)) return true;
      picked.push(item);
      return false;
    });
    return picked;
  }

  private grow(): void {
    const old = this.slots;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = old[(this.head + i) & this.mask];
    this.slots = next;
    this.head = 0;
    this.mask = next.length - 1;
  }
}
