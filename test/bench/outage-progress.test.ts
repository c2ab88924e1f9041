// The scenario's progress line (redrawn in place on a terminal, one line per phase elsewhere) and
// the unrelated task's pace (a frame the event loop never reached is a missed tick, not made up).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeProgress, ProgressLine, type ProgressState } from '../../bench/outage/progress.js';
import { UnrelatedTask } from '../../bench/outage/unrelated-task.js';

const COUNTS = { completed: 12_345, rejectedFast: 6, timedOut: 1, failed: 2, pending: 64, notIssued: 7 };

function state(overrides: Partial<ProgressState> = {}): ProgressState {
  return {
    index: 1,
    total: 4,
    contender: 'ioredis',
    phase: 'blip',
    phaseElapsedMs: 4_250,
    phaseMs: 10_000,
    counts: COUNTS,
    ...overrides,
  };
}

describe('describeProgress', () => {
  it('names the contender, the phase with its clock, and every count', () => {
    expect(describeProgress(state())).toBe(
      'outage 1/4 ioredis · blip 4.3/10.0 s · completed 12,345 · rejected 6 · timed out 1 · failed 2 · pending 64 · not issued 7',
    );
    expect(describeProgress(state({ phase: 'connecting', phaseMs: 0, counts: undefined }))).toBe(
      'outage 1/4 ioredis · connecting',
    );
  });
});

describe('ProgressLine', () => {
  it('on a terminal redraws one line in place, at most every 100 ms unless the phase changes, then clears it', () => {
    let clock = 0;
    const written: string[] = [];
    const line = new ProgressLine(
      { write: (text) => written.push(text), isTTY: true, columns: 60 },
      () => clock,
    );
    line.show(state());
    clock = 50;
    line.show(state({ phaseElapsedMs: 4_300 }));
    clock = 60;
    line.show(state({ phase: 'after the heal' }));
    clock = 200;
    line.show(state({ phase: 'after the heal' }));
    line.clear();
    expect(written).toHaveLength(4);
    for (const text of written.slice(0, 3)) {
      expect(text.startsWith('\r')).toBe(true);
      expect(text.endsWith('\x1b[K')).toBe(true);
      expect(text.length).toBeLessThanOrEqual(1 + 59 + 3);
    }
    expect(written[1]).toContain('after the heal');
    expect(written[3]).toBe('\r\x1b[K');
  });

  it('elsewhere writes one plain line per phase, without counts', () => {
    const written: string[] = [];
    const line = new ProgressLine({ write: (text) => written.push(text) });
    line.show(state({ phaseElapsedMs: 0 }));
    line.show(state({ phaseElapsedMs: 900 }));
    line.show(state({ index: 2, contender: 'node-redis', phaseElapsedMs: 0 }));
    line.clear();
    expect(written).toEqual([
      'outage 1/4 ioredis · blip 0.0/10.0 s\n',
      'outage 2/4 node-redis · blip 0.0/10.0 s\n',
    ]);
  });
});

describe('UnrelatedTask', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs once per frame while the loop is free, and loses the frames of a stall', () => {
    const task = new UnrelatedTask(10, () => Date.now());
    task.start();
    vi.advanceTimersByTime(1_000);
    expect(task.pacePercent(0, 1_000)).toBe(100);
    // A 200 ms stall: the clock moves on while no timer runs.
    vi.setSystemTime(Date.now() + 200);
    vi.advanceTimersByTime(800);
    task.stop();
    expect(task.pacePercent(1_000, 2_000)).toBe(80); // frames 100-119 lost
    expect(task.checksum).not.toBe(0);
    // Nothing was due in an empty span.
    expect(task.pacePercent(500, 505)).toBe(100);
  });
});
