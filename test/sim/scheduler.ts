// The simulated world's time (issue 16): one clock, one queue of events, one trace. The client gets
// `clock` (its `timers` make every timer of the client an event here, util/timers.ts); the network
// and the simulated Redis schedule their deliveries here too. Nothing real ever waits: `run` takes
// the earliest event, moves the clock to it and runs it, after letting every microtask and
// nextTick of the previous one finish, so one seed always gives one order of events.
import { setImmediate as turn } from 'node:timers/promises';
import type { Clock, ClockTimers } from '../../src/util/clock.js';

/** Timers run before I/O due at the same moment, as in Node's event loop after a pause. */
export type EventKind = 'timer' | 'io';

interface SimEvent {
  time: number;
  kind: EventKind;
  seq: number;
  label: string;
  run: () => void;
  cancelled: boolean;
}

/** How many trace lines a run keeps: the ones leading up to a broken invariant (SIM_TRACE_LINES). */
const TRACE_LINES = Number(process.env.SIM_TRACE_LINES ?? 400);

export class Scheduler {
  private time = 0;
  private seq = 0;
  private readonly queue: SimEvent[] = [];
  private readonly traceLines: string[] = [];
  private traceStart = 0;
  events = 0;

  /** The clock the client runs on: `now` and timers in simulated milliseconds. */
  readonly clock: Clock = {
    now: () => this.time,
    timers: {
      set: (callback, delayMs) =>
        this.at(this.time + Math.max(0, delayMs), 'timer', 'client timer', callback),
      clear: (handle) => {
        (handle as SimEvent).cancelled = true;
      },
    } satisfies ClockTimers,
  };

  now(): number {
    return this.time;
  }

  /** Runs `run` at `time` (not before now); returns a handle `cancel` takes. */
  at(time: number, kind: EventKind, label: string, run: () => void): SimEvent {
    const event: SimEvent = {
      time: Math.max(time, this.time),
      kind,
      seq: this.seq++,
      label,
      run,
      cancelled: false,
    };
    this.insert(event);
    return event;
  }

  after(delayMs: number, label: string, run: () => void): SimEvent {
    return this.at(this.time + delayMs, 'io', label, run);
  }

  cancel(event: SimEvent | undefined): void {
    if (event !== undefined) event.cancelled = true;
  }

  /**
   * The process stalls for `ms` (a GC pause, a suspended VM): the clock jumps, and everything that
   * fell due meanwhile runs at the new time, timers first.
   */
  jump(ms: number): void {
    const until = this.time + ms;
    this.trace(`clock jumps ${ms} ms`);
    const due = this.queue.filter((event) => event.time < until);
    for (const event of due) event.time = until;
    this.queue.sort(compare);
    this.time = until;
  }

  trace(line: string): void {
    if (this.traceLines.length >= TRACE_LINES) {
      this.traceLines[this.traceStart] = `${this.time.toFixed(1)} ${line}`;
      this.traceStart = (this.traceStart + 1) % TRACE_LINES;
    } else {
      this.traceLines.push(`${this.time.toFixed(1)} ${line}`);
    }
  }

  /** The last trace lines, oldest first. */
  recentTrace(): string[] {
    return [...this.traceLines.slice(this.traceStart), ...this.traceLines.slice(0, this.traceStart)];
  }

  /**
   * Runs events until `done()` holds, nothing is left to run, or the next event is past `limitMs`;
   * returns whether `done()` held. `check` runs after every event.
   */
  async run(limitMs: number, done: () => boolean, check?: () => void): Promise<boolean> {
    for (;;) {
      await turn();
      check?.();
      if (done()) return true;
      const event = this.next();
      if (event === undefined) return false;
      if (event.time > limitMs) {
        this.queue.unshift(event);
        return false;
      }
      this.time = event.time;
      this.events++;
      event.run();
    }
  }

  private next(): SimEvent | undefined {
    for (let event = this.queue.shift(); event !== undefined; event = this.queue.shift()) {
      if (!event.cancelled) return event;
    }
    return undefined;
  }

  /** Binary insertion keeps the queue ordered by (time, kind, seq). */
  private insert(event: SimEvent): void {
    let lo = 0;
    let hi = this.queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.queue[mid]!, event) <= 0) lo = mid + 1;
      else hi = mid;
    }
    this.queue.splice(lo, 0, event);
  }
}

function compare(a: SimEvent, b: SimEvent): number {
  if (a.time !== b.time) return a.time - b.time;
  if (a.kind !== b.kind) return a.kind === 'timer' ? -1 : 1;
  return a.seq - b.seq;
}

export type { SimEvent };
