// The SCAN walk's sweep (cluster-scan.ts) and the slot history it reads (slot-history.ts), on the
// recorded 7.0.15 topology (0-5460 on :27101, 5461-10922 on :27102, 10923-16383 on :27103) with
// slots moved by withMovedSlot between pages, as a refresh or a MOVED would.
import { describe, expect, it } from 'vitest';
import { clusterScanReply, planScanPage, type ScanPage } from '../../src/cluster/cluster-scan.js';
import { withMovedSlot } from '../../src/cluster/moved-slot.js';
import { nodeAddress } from '../../src/cluster/node-address.js';
import { parseShardsReply } from '../../src/cluster/shards-reply.js';
import { SlotHistory } from '../../src/cluster/slot-history.js';
import type { ClusterTopology } from '../../src/cluster/topology.js';
import { RespireServerError } from '../../src/errors.js';
import { RECORDED } from './recorded-replies.js';
import { decodeReply } from './topology-summary.js';

const stable = (): ClusterTopology =>
  parseShardsReply(decodeReply(RECORDED.stable.shards.resp3), { node: { host: '127.0.0.1', port: 27101 } });
const port = (topology: ClusterTopology, page: ScanPage) => topology.nodes[page.owner]!.endpoint.port;
const moved = (topology: ClusterTopology, slot: number, to: number) =>
  withMovedSlot(topology, slot, nodeAddress('127.0.0.1', to, { blankHost: 'unused' })!);

/** A page's plan, and the caller's cursor after a node reply with `nodeCursor`. */
function page(topology: ClusterTopology, history: SlotHistory, cursor: string, nodeCursor: string) {
  history.observe(topology);
  const plan = planScanPage(['SCAN', cursor], topology, history) as ScanPage;
  const reply = clusterScanReply([nodeCursor, []], plan, topology, history) as [string, unknown];
  return { plan, next: reply[0] };
}

describe('SlotHistory', () => {
  it('moves to a new generation only for a topology that moves a slot, and dates each slot', () => {
    const history = new SlotHistory();
    const before = stable();
    history.observe(before);
    history.observe(stable());
    expect(history.generation).toBe(0);
    history.observe(moved(before, 100, 27103));
    expect(history.generation).toBe(1);
    expect(history.movedSince(100, 0)).toBe(true);
    expect(history.movedSince(101, 0)).toBe(false);
    expect(history.movedSince(100, 1)).toBe(false);
  });
});

describe('the SCAN sweep', () => {
  it('walks each primary once in slot order when nothing moves', () => {
    const history = new SlotHistory();
    const topology = stable();
    const ports: number[] = [];
    let cursor = '0';
    do {
      const { plan, next } = page(topology, history, cursor, '0');
      ports.push(port(topology, plan));
      cursor = next;
    } while (cursor !== '0');
    expect(ports).toEqual([27101, 27102, 27103]);
  });

  it('keeps a node cursor on its node, and starts the step again on the new owner when its slot moves', () => {
    const history = new SlotHistory();
    const topology = stable();
    const first = page(topology, history, '0', '17');
    expect(first.next).toBe('0-0-0-17');
    const same = page(topology, history, first.next, '0');
    expect(same.plan.page).toEqual(['SCAN', '17']);
    const after = moved(topology, 0, 27102);
    const again = page(after, history, first.next, '5');
    expect([port(after, again.plan), again.plan.page]).toEqual([27102, ['SCAN', '0']]);
  });

  it('scans a walked node again for a slot moved to it, and a node whose lowest slot went behind the cursor', () => {
    const history = new SlotHistory();
    let topology = stable();
    const ports: number[] = [];
    let cursor = '0';
    do {
      const { plan, next } = page(topology, history, cursor, '0');
      ports.push(port(topology, plan));
      // On the second node: slot 12000 goes to the first (walked), slot 100 to the third.
      if (ports.length === 2) topology = moved(moved(topology, 12000, 27101), 100, 27103);
      cursor = next;
    } while (cursor !== '0');
    // The third node (lowest slot now 100, behind the cursor) is walked; the first again for 12000.
    expect(ports).toEqual([27101, 27102, 27103, 27101]);
  });

  it('refuses a cursor no walk of this client made', () => {
    const history = new SlotHistory();
    const topology = stable();
    history.observe(topology);
    for (const cursor of ['x', '16384-0-0-0', '5-0-3-0', '5-2-1-0']) {
      expect(planScanPage(['SCAN', cursor], topology, history)).toBeInstanceOf(RespireServerError);
    }
  });
});
