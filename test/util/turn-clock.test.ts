import { describe, expect, it } from 'vitest';
import { turnCachedClock } from '../../src/util/turn-clock.js';

describe('turnCachedClock', () => {
  it('reads the source once per synchronous run and again after a microtask checkpoint', async () => {
    let time = 100;
    let reads = 0;
    const clock = turnCachedClock({
      now: () => {
        reads++;
        return time;
      },
    });
    expect(clock.now()).toBe(100);
    time = 200;
    expect(clock.now()).toBe(100);
    expect(reads).toBe(1);
    await Promise.resolve();
    expect(clock.now()).toBe(200);
    expect(reads).toBe(2);
  });

  it('reads anew within the same run after refresh()', () => {
    let time = 100;
    const clock = turnCachedClock({ now: () => time });
    expect(clock.now()).toBe(100);
    time = 300;
    clock.refresh();
    expect(clock.now()).toBe(300);
    time = 400;
    expect(clock.now()).toBe(300);
  });
});
