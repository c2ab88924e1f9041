// RingQueue.extract: what a Cluster router takes out of a node's send queue (channel.ts
// takeUnwritten) leaves in order, the rest stays in order, across the ring's wrap-around.
import { describe, expect, it } from 'vitest';
import { RingQueue } from '../../src/util/ring-queue.js';

function drain(queue: RingQueue<number>): number[] {
  const items: number[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) items.push(item);
  return items;
}

describe('RingQueue.extract', () => {
  it('returns the picked entries in order and keeps the others in order, across the wrap-around', () => {
    const queue = new RingQueue<number>(4);
    for (const item of [0, 1, 2]) queue.push(item);
    queue.shift();
    queue.shift();
    for (const item of [3, 4, 5]) queue.push(item); // head at 2 of 4: the entries wrap
    expect(queue.extract((item) => item % 2 === 1)).toEqual([3, 5]);
    expect(queue.length).toBe(2);
    queue.push(6);
    expect(drain(queue)).toEqual([2, 4, 6]);
  });

  it('returns nothing and changes nothing when nothing is picked', () => {
    const queue = new RingQueue<number>();
    for (const item of [1, 2, 3]) queue.push(item);
    expect(queue.extract(() => false)).toEqual([]);
    expect(drain(queue)).toEqual([1, 2, 3]);
  });
});
