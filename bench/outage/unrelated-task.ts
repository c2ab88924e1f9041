// The unrelated CPU task whose pace tells whether a contender's process stayed responsive (seed
// 001: "event processing — which had nothing to do with Redis — ground to a halt"). Time is cut
// into frames of `periodMs`; the task does one fixed piece of work per frame, as soon as the
// frame starts. A frame in which the event loop never got round to it is a missed tick: a late
// timer does not run twice to catch up.

/** Iterations of the fixed work, a few hundred microseconds on a current core. */
const WORK_ITERATIONS = 200_000;

export class UnrelatedTask {
  private startedAt = 0;
  private lastFrame = -1;
  private timer: NodeJS.Timeout | undefined;
  /** Frames in which the work ran, in order. */
  private readonly done: number[] = [];
  /** Keeps the work observable, so the optimiser cannot drop it. */
  checksum = 0;

  constructor(
    readonly periodMs: number,
    private readonly now: () => number,
  ) {}

  start(): void {
    this.startedAt = this.now();
    this.schedule(0);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Frames run per frame due that started in [from, to), in percent (100 when none was due). */
  pacePercent(from: number, to: number): number {
    const first = Math.ceil((from - this.startedAt) / this.periodMs);
    const last = Math.floor((to - this.startedAt) / this.periodMs); // exclusive
    if (last <= first) return 100;
    const ran = this.done.filter((frame) => frame >= first && frame < last).length;
    return (ran * 100) / (last - first);
  }

  private readonly tick = (): void => {
    const frame = Math.floor((this.now() - this.startedAt) / this.periodMs);
    if (frame > this.lastFrame) {
      this.lastFrame = frame;
      this.done.push(frame);
      this.checksum = work(this.checksum);
    }
    this.schedule(frame + 1);
  };

  private schedule(frame: number): void {
    const due = this.startedAt + frame * this.periodMs;
    this.timer = setTimeout(this.tick, Math.max(0, Math.ceil(due - this.now())));
  }
}

/** A fixed amount of integer arithmetic (xorshift32). */
function work(seed: number): number {
  let x = seed | 1;
  for (let i = 0; i < WORK_ITERATIONS; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  return x;
}
