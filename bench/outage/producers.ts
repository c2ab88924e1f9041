// The scenario's workload inside a contender's process: `producers` concurrent producers making
// `callsPerSecond` calls in all, alternately PUBLISH and XADD. One timer releases the calls due
// (so the offered rate does not depend on how many producers there are); each goes to a producer
// that is free, and each producer awaits its call, with the client's own behaviour, before it
// takes another. A call offered while every producer is still waiting is not made (counted as
// not issued): like a publisher stuck in seed 001, the producers fall behind.
// The calls due at a release are made one after another, each caller's reaction to a call the
// client settled inside it running before the next call is made, as independent callers would (a
// caller made to wait for the generator's later calls would measure the generator, not the client).
// Each call's log entry says both when its caller saw it settle and when the client settled it: a
// promise whose reaction ran before the generator went on was settled when the call returned
// (call-log.ts `settles`).
import { type CallLog, type FailureOutcome, Outcome } from './call-log.js';
import type { OutageDriver } from './drivers/driver.js';

/** How often the schedule releases the calls due. */
const RELEASE_EVERY_MS = 5;
/** Filler that makes each event about 100 bytes, as a small JSON event would be. */
const PADDING = 'x'.repeat(72);

export interface ProducerOptions {
  producers: number;
  callsPerSecond: number;
  /** Channel and stream the calls go to: with `keys` > 1, with `:0` … `:keys-1` appended. */
  channel: string;
  stream: string;
  keys: number;
  /** The call log's group of each key's calls (default: all 0). */
  groups?: Uint8Array;
}

export class Producers {
  /** Indices of producers not waiting for a call, used last-in first-out. */
  private readonly idle: number[];
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private offered = 0;
  private stopped = false;
  /** The last call after which the generator went on (its reaction, if settled then, ran before). */
  private continued = -1;
  private onSettled: (() => void) | undefined;
  /** Error names and how often they were seen. */
  readonly errors: Record<string, number> = {};
  private readonly channels: string[];
  private readonly streams: string[];

  constructor(
    private readonly driver: OutageDriver,
    private readonly log: CallLog,
    private readonly options: ProducerOptions,
    private readonly now: () => number,
  ) {
    this.idle = Array.from({ length: options.producers }, (_, index) => index);
    const names = (base: string) =>
      options.keys === 1 ? [base] : Array.from({ length: options.keys }, (_, key) => `${base}:${key}`);
    this.channels = names(options.channel);
    this.streams = names(options.stream);
  }

  start(): void {
    this.startedAt = this.now();
    this.timer = setInterval(this.release, RELEASE_EVERY_MS);
  }

  /** No more calls are made; calls in flight keep their producers until they settle. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Resolves once no call is pending, or after `graceMs`, whichever comes first. */
  settled(graceMs: number): Promise<void> {
    if (this.log.counts.pending === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.onSettled = undefined;
        resolve();
      }, graceMs);
      this.onSettled = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private readonly release = (): void => {
    const due = Math.floor(((this.now() - this.startedAt) * this.options.callsPerSecond) / 1000);
    if (this.offered < due) void this.issue(due);
  };

  /** Makes the calls due; all within the release's tick, since only microtasks separate them. */
  private async issue(due: number): Promise<void> {
    for (; this.offered < due; this.offered++) {
      const producer = this.idle.pop();
      if (producer === undefined) {
        this.log.missed(due - this.offered);
        this.offered = due;
        return;
      }
      const sequence = this.offered;
      this.call(producer, sequence);
      // A reaction queued by a call the client settled inside it runs ahead of this continuation.
      await Promise.resolve();
      this.continued = sequence;
    }
  }

  private call(producer: number, sequence: number): void {
    // A PUBLISH and the XADD after it share a key, and so a slot.
    const key = (sequence >>> 1) % this.options.keys;
    const index = this.log.start(this.now(), this.options.groups?.[key] ?? 0);
    const event = `{"seq":${sequence},"producer":${producer},"data":"${PADDING}"}`;
    let promise: Promise<unknown>;
    try {
      promise =
        sequence % 2 === 0
          ? this.driver.publish(this.channels[key]!, event)
          : this.driver.xadd(this.streams[key]!, event);
    } catch (error) {
      promise = Promise.reject(error);
    }
    const returnedAt = this.now();
    promise.then(
      () => this.settle(producer, index, Outcome.Completed, sequence, returnedAt),
      (error: unknown) => this.settle(producer, index, this.classify(error), sequence, returnedAt),
    );
  }

  private settle(
    producer: number,
    index: number,
    outcome: Exclude<Outcome, typeof Outcome.Pending>,
    sequence: number,
    returnedAt: number,
  ): void {
    const now = this.now();
    // The generator has not gone on after this call: its promise was settled when the call returned.
    this.log.settle(index, outcome, now, this.continued < sequence ? returnedAt : now);
    if (!this.stopped) this.idle.push(producer);
    else if (this.log.counts.pending === 0 && this.onSettled !== undefined) {
      const settled = this.onSettled;
      this.onSettled = undefined;
      settled();
    }
  }

  private classify(error: unknown): FailureOutcome {
    // The class, since some clients leave every error's `name` as 'Error'.
    const name = error instanceof Error ? error.constructor.name : typeof error;
    this.errors[name] = (this.errors[name] ?? 0) + 1;
    return this.driver.classify(error);
  }
}
