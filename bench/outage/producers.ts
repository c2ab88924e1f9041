// The scenario's workload inside a contender's process: `producers` concurrent producers making
// `callsPerSecond` calls in all, alternately PUBLISH and XADD. One timer releases the calls due
// (so the offered rate does not depend on how many producers there are); each goes to a producer
// that is free, and each producer awaits its call, with the client's own behaviour, before it
// takes another. A call offered while every producer is still waiting is not made (counted as
// not issued): like a publisher stuck in seed 001, the producers fall behind.
// Each call's log entry says both when its caller saw it settle and when the client settled it: a
// promise already settled when the call returned (its reaction runs before the marker the tick
// queues last) was settled inside the call, so the calls made after it in the same tick, which its
// caller also waits for, are the generator's and not the client's (call-log.ts `settles`).
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
  /** Ticks of `release` begun, and ticks whose end marker ran (every reaction queued before it ran). */
  private ticks = 0;
  private drainedTicks = 0;
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
    this.ticks++;
    for (; this.offered < due; this.offered++) {
      const producer = this.idle.pop();
      if (producer === undefined) {
        this.log.missed(due - this.offered);
        this.offered = due;
        break;
      }
      this.call(producer, this.offered);
    }
    queueMicrotask(this.drained);
  };

  private readonly drained = (): void => {
    this.drainedTicks++;
  };

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
    const tick = this.ticks;
    promise.then(
      () => this.settle(producer, index, Outcome.Completed, tick, returnedAt),
      (error: unknown) => this.settle(producer, index, this.classify(error), tick, returnedAt),
    );
  }

  private settle(
    producer: number,
    index: number,
    outcome: Exclude<Outcome, typeof Outcome.Pending>,
    tick: number,
    returnedAt: number,
  ): void {
    const now = this.now();
    // The marker of the call's tick has not run: the promise was settled when the call returned.
    this.log.settle(index, outcome, now, this.drainedTicks < tick ? returnedAt : now);
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
