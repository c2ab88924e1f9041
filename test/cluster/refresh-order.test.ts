// RefreshOrder (refresh-order.ts): nodes whose topology read failed lately are asked last, oldest
// failure first, until they answer again or the failure is a minute old.
import { describe, expect, it } from 'vitest';
import { RefreshOrder } from '../../src/cluster/refresh-order.js';

const node = (port: number) => ({ endpoint: { host: '127.0.0.1', port } });
const ports = (list: readonly { endpoint: { port: number } }[]) => list.map((entry) => entry.endpoint.port);

describe('RefreshOrder', () => {
  it('keeps the order while nothing failed', () => {
    expect(ports(new RefreshOrder().order([node(1), node(2), node(3)], 0))).toEqual([1, 2, 3]);
  });

  it('moves failed nodes to the back, the oldest failure first', () => {
    const order = new RefreshOrder();
    order.failed(node(2).endpoint, 10);
    order.failed(node(1).endpoint, 20);
    expect(ports(order.order([node(1), node(2), node(3)], 30))).toEqual([3, 2, 1]);
  });

  it('gives a node that answered again its place back', () => {
    const order = new RefreshOrder();
    order.failed(node(1).endpoint, 0);
    order.answered(node(1).endpoint);
    expect(ports(order.order([node(1), node(2)], 1))).toEqual([1, 2]);
  });

  it('forgets a failure after a minute, and forgets nodes no longer asked', () => {
    const order = new RefreshOrder();
    order.failed(node(1).endpoint, 0);
    expect(ports(order.order([node(1), node(2)], 59_999))).toEqual([2, 1]);
    expect(ports(order.order([node(1), node(2)], 60_000))).toEqual([1, 2]);
    order.failed(node(3).endpoint, 60_000);
    order.order([node(1)], 60_001); // 3 is gone from the map
    expect(ports(order.order([node(3), node(1)], 60_002))).toEqual([3, 1]);
  });
});
