// Two small pieces of a shared circuit's slot: its guard (a compareExchange spin lock, never
// Atomics.wait) and its open deadline (a Float64 kept as two Int32 halves, since Atomics stores
// integers only). shared-circuit.ts says when each is used and why that is safe.

/** Splits and joins a Float64 into the two Int32 halves Atomics can store; one per thread. */
const halves = new Int32Array(2);
const joined = new Float64Array(halves.buffer);

/** The guard of one slot: held for one ring append or one transition, so a spin, not a wait. */
export class SlotGuard {
  constructor(
    private readonly cells: Int32Array,
    private readonly cell: number,
  ) {}

  lock(): void {
    while (Atomics.compareExchange(this.cells, this.cell, 0, 1) !== 0);
  }

  unlock(): void {
    Atomics.store(this.cells, this.cell, 0);
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
