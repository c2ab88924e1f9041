// The `publish` calls still waiting for an outcome, in call order, with one timer for all of them:
// every call gets the same budget, so deadlines only grow and the earliest is always at the head
// (STYLE.md: one deadline timer, re-armed, rather than a timer per call).
import { performance } from 'node:perf_hooks';

/**
 * `delivered`: in the stream. `spooled`: on disk per the fsync policy, to be replayed.
 * `spooled-unsynced`: in the spool and to be replayed, but its fsync failed (`always`), so a power
 * loss may take it: do not publish it again (a duplicate), but it is not durable (SpoolSyncError).
 */
export type PublishOutcome = 'delivered' | 'spooled' | 'spooled-unsynced';

export interface PendingPublish {
  readonly key: string;
  readonly data: string | Buffer;
  readonly deadline: number;
  readonly promise: Promise<PublishOutcome>;
  settled: boolean;
}

interface Entry extends PendingPublish {
  resolve(outcome: PublishOutcome): void;
  reject(error: unknown): void;
}

export class PendingPublishes {
  /** Settled entries are popped from the head lazily. */
  private readonly entries: Entry[] = [];
  private head = 0;
  private count = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly settleWaiters: (() => void)[] = [];

  constructor(
    private readonly budgetMs: number,
    /** Called for each entry whose deadline passed unsettled; it must settle the entry. */
    private readonly onExpired: (entry: PendingPublish) => void,
  ) {}

  /** Calls not yet settled. */
  get unsettled(): number {
    return this.count;
  }

  add(key: string, data: string | Buffer): PendingPublish {
    let resolve!: (outcome: PublishOutcome) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<PublishOutcome>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Entry = {
      key,
      data,
      deadline: performance.now() + this.budgetMs,
      promise,
      settled: false,
      resolve,
      reject,
    };
    this.entries.push(entry);
    this.count++;
    if (this.timer === undefined) this.arm(this.budgetMs);
    return entry;
  }

  resolve(pending: PendingPublish, outcome: PublishOutcome): void {
    if (this.markSettled(pending)) (pending as Entry).resolve(outcome);
  }

  reject(pending: PendingPublish, error: unknown): void {
    if (this.markSettled(pending)) (pending as Entry).reject(error);
  }

  /** Resolves when every call has settled (each does by its deadline). */
  whenSettled(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private markSettled(pending: PendingPublish): boolean {
    if (pending.settled) return false;
    pending.settled = true;
    this.count--;
    while (this.head < this.entries.length && this.entries[this.head]!.settled) this.head++;
    if (this.head === this.entries.length) {
      this.entries.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
    if (this.count === 0) for (const wake of this.settleWaiters.splice(0)) wake();
    return true;
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const now = performance.now();
        for (let entry = this.entries[this.head]; entry !== undefined; entry = this.entries[this.head]) {
          if (entry.deadline > now) {
            this.arm(entry.deadline - now);
            return;
          }
          this.onExpired(entry);
          if (!entry.settled) throw new Error('onExpired must settle the entry');
        }
      },
      Math.max(1, Math.ceil(delayMs)),
    );
  }
}
