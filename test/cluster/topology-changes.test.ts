// withMovedSlot (a MOVED patches one slot, old topologies untouched) and compareTopologies (what a
// refresh changed), on topologies parsed from the recorded 7.0.15 replies.
import { describe, expect, it } from 'vitest';
import { withMovedSlot } from '../../src/cluster/moved-slot.js';
import { nodeAddress } from '../../src/cluster/node-address.js';
import { parseShardsReply } from '../../src/cluster/shards-reply.js';
import type { ClusterTopology } from '../../src/cluster/topology.js';
import { compareTopologies } from '../../src/cluster/topology-diff.js';
import { RespireError } from '../../src/errors.js';
import { RECORDED } from './recorded-replies.js';
import { decodeReply, summarize } from './topology-summary.js';

function recorded(
  name: 'stable' | 'migrated' | 'replicaFailed' | 'failover' | 'primaryFailed' | 'hostname',
): ClusterTopology {
  return parseShardsReply(decodeReply(RECORDED[name].shards.resp3), {
    node: { host: '127.0.0.1', port: 27101 },
  });
}

const address = (host: string, port: number) => nodeAddress(host, port, { blankHost: 'unused' })!;

describe('withMovedSlot', () => {
  it('gives the slot to a known node in a copy, leaving the old topology as it was', () => {
    const before = recorded('stable');
    const after = withMovedSlot(before, 100, address('127.0.0.1', 27102));
    expect(summarize(after)).toEqual(summarize(recorded('migrated')));
    expect(summarize(before).ranges).toEqual([
      '0-5460 127.0.0.1:27101',
      '5461-10922 127.0.0.1:27102',
      '10923-16383 127.0.0.1:27103',
    ]);
    expect(after.nodes).toBe(before.nodes);
    expect(Object.isFrozen(after)).toBe(true);
  });

  it('returns the same topology when the slot already belongs to the target', () => {
    const before = recorded('stable');
    expect(withMovedSlot(before, 0, address('127.0.0.1', 27101))).toBe(before);
  });

  it('adds a target it does not know as an online primary without an id', () => {
    const before = recorded('stable');
    const after = withMovedSlot(before, 16383, address('10.1.1.1', 7000));
    const added = after.nodes[6]!;
    expect(added).toMatchObject({
      index: 6,
      id: undefined,
      key: '10.1.1.1:7000',
      role: 'primary',
      health: 'online',
      primary: 6,
      replicas: [],
    });
    expect(after.byKey.get('10.1.1.1:7000')).toBe(6);
    expect(after.slots[16383]).toBe(6);
    expect(after.slots[16382]).toBe(before.slots[16382]);
    expect(before.nodes).toHaveLength(6);
    expect(before.byKey.has('10.1.1.1:7000')).toBe(false);
    expect(Object.isFrozen(added)).toBe(true);
  });

  it('keeps the role of a known replica it names (a promotion the refresh will confirm)', () => {
    const before = recorded('stable');
    const after = withMovedSlot(before, 0, address('127.0.0.1', 27104));
    expect(after.nodes[after.slots[0]!]).toMatchObject({ key: '127.0.0.1:27104', role: 'replica' });
  });

  it('refuses a slot outside 0 through 16383', () => {
    const before = recorded('stable');
    for (const slot of [-1, 16384, 1.5, Number.NaN]) {
      expect(() => withMovedSlot(before, slot, address('127.0.0.1', 27102))).toThrow(RespireError);
    }
  });
});

describe('compareTopologies', () => {
  it('finds the slots a migration moved and nothing else', () => {
    expect(compareTopologies(recorded('stable'), recorded('migrated'))).toEqual({
      removed: [],
      roleChanged: [],
      movedSlots: [100],
    });
    expect(compareTopologies(recorded('migrated'), recorded('migrated'))).toEqual({
      removed: [],
      roleChanged: [],
      movedSlots: [],
    });
  });

  it('finds the promoted replica and the slots that followed it in a failover', () => {
    const changes = compareTopologies(recorded('replicaFailed'), recorded('failover'));
    expect(changes.removed).toEqual([]);
    expect(changes.roleChanged.map((node) => `${node.key} ${node.role}`)).toEqual([
      '127.0.0.1:27105 primary',
    ]);
    expect(changes.movedSlots).toHaveLength(1 + 10922 - 5461 + 1);
    expect(changes.movedSlots[0]).toBe(100);
    expect(changes.movedSlots.at(-1)).toBe(10922);
  });

  it('lists the nodes gone from the table, whose connections are to be closed', () => {
    const changes = compareTopologies(recorded('stable'), recorded('hostname'));
    expect(changes.removed.map((node) => node.key)).toEqual([
      '127.0.0.1:27103',
      '127.0.0.1:27106',
      '127.0.0.1:27101',
      '127.0.0.1:27104',
      '127.0.0.1:27102',
      '127.0.0.1:27105',
    ]);
    // Every slot changed owner: unassigned now, or owned by localhost:27102 instead of 127.0.0.1:27102.
    expect(changes.movedSlots).toHaveLength(16384);
  });
});
