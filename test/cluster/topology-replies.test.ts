// parseShardsReply and parseSlotsReply on CLUSTER SHARDS / CLUSTER SLOTS replies recorded from
// redis-server 7.0.15 (recorded-replies.ts), in RESP2 and RESP3, with strings and with Buffers:
// node addresses (blank, `?`, hostnames), health, replicas, non-contiguous ranges, failover.
import { describe, expect, it } from 'vitest';
import { parseShardsReply } from '../../src/cluster/shards-reply.js';
import { parseSlotsReply } from '../../src/cluster/slots-reply.js';
import type { ClusterTopology } from '../../src/cluster/topology.js';
import type { RespValue } from '../../src/resp/types.js';
import { RECORDED, type RecordedReply } from './recorded-replies.js';
import { decodeReply, summarize, type TopologySummary } from './topology-summary.js';

const LOCAL = '127.0.0.1';
const at = (port: number) => `${LOCAL}:${port}`;
const primary = (port: number, replicas: number[] = [], health = 'online') =>
  `${at(port)} primary ${health} replicas ${replicas.map(at).join(',')}`.trimEnd();
const replica = (port: number, of: number, health = 'online') => `${at(port)} replica ${health} of ${at(of)}`;

const THIRDS = ['0-5460', '5461-10922', '10923-16383'];
const MIGRATED = (a: string, b: string, c: string) => [
  `0-99 ${a}`,
  `100-100 ${b}`,
  `101-5460 ${a}`,
  `5461-10922 ${b}`,
  `10923-16383 ${c}`,
];
const STABLE_RANGES = THIRDS.map((range, i) => `${range} ${at(27101 + i)}`);

type Parse = (reply: RespValue, source: { node: { host: string; port: number } }) => ClusterTopology;

/** Every decoding of a recorded reply: RESP2 and RESP3, strings and Buffers. */
function everyDecoding(recorded: { resp2: string; resp3: string }): [string, RespValue][] {
  return (['resp2', 'resp3'] as const).flatMap((protocol) =>
    [false, true].map((buffers): [string, RespValue] => [
      `${protocol}${buffers ? ' with Buffers' : ''}`,
      decodeReply(recorded[protocol], buffers),
    ]),
  );
}

function checkRecorded(name: keyof typeof RECORDED, command: 'shards' | 'slots', expected: TopologySummary) {
  const recorded: RecordedReply = RECORDED[name];
  const replies = recorded[command];
  if (replies === undefined) throw new Error(`no ${command} recording for ${name}`);
  const parse: Parse = command === 'shards' ? parseShardsReply : parseSlotsReply;
  for (const [how, reply] of everyDecoding(replies)) {
    const topology = parse(reply, { node: { host: LOCAL, port: recorded.askedPort } });
    expect(summarize(topology), `${name} ${command} ${how}`).toEqual(expected);
  }
}

/** A shard as both commands list it: the primary, then its replica (an online replica only is listed as one). */
const shard = (port: number, replicaPort: number, primaryHealth = 'online', replicaHealth = 'online') => [
  primary(port, replicaHealth === 'online' ? [replicaPort] : [], primaryHealth),
  replica(replicaPort, port, replicaHealth),
];
/** SHARDS lists the shard of 27103 first; SLOTS goes by slot. */
const STABLE_SHARDS = [...shard(27103, 27106), ...shard(27101, 27104), ...shard(27102, 27105)];
const STABLE_SLOTS = [...shard(27101, 27104), ...shard(27102, 27105), ...shard(27103, 27106)];
/** After the failover: 27105 promoted, 27102 a slotless failed primary; SLOTS lists the live ones. */
const FAILOVER_SHARDS = (primaryHealth: string) => [
  ...shard(27103, 27106, primaryHealth, 'failed'),
  primary(27105),
  ...shard(27101, 27104),
  primary(27102, [], 'failed'),
];
const FAILOVER_SLOTS = [...shard(27101, 27104), primary(27105), primary(27103)];

describe('CLUSTER SHARDS and CLUSTER SLOTS, as recorded from 7.0.15', () => {
  it('a stable cluster: three primaries with a replica each', () => {
    checkRecorded('stable', 'shards', { nodes: STABLE_SHARDS, ranges: STABLE_RANGES });
    checkRecorded('stable', 'slots', { nodes: STABLE_SLOTS, ranges: STABLE_RANGES });
  });

  it('replicas still loading are listed but are nobody’s replicas for traffic', () => {
    const loading = (port: number) => [primary(port), replica(port + 3, port, 'loading')];
    checkRecorded('loading', 'shards', {
      nodes: [...loading(27203), ...loading(27202), ...loading(27201)],
      ranges: THIRDS.map((range, i) => `${range} ${at(27201 + i)}`),
    });
  });

  it('a migrated slot splits its owners’ ranges; a node listed per range is one node', () => {
    const ranges = MIGRATED(at(27101), at(27102), at(27103));
    checkRecorded('migrated', 'shards', { nodes: STABLE_SHARDS, ranges });
    checkRecorded('migrated', 'slots', { nodes: STABLE_SLOTS, ranges });
  });

  it('a failed replica (7.0.15 says `fail`) is kept out of its primary’s replicas; SLOTS leaves it out', () => {
    const ranges = MIGRATED(at(27101), at(27102), at(27103));
    const nodes = [
      ...shard(27103, 27106, 'online', 'failed'),
      ...shard(27101, 27104),
      ...shard(27102, 27105),
    ];
    checkRecorded('replicaFailed', 'shards', { nodes, ranges });
    checkRecorded('replicaFailed', 'slots', { nodes: [...STABLE_SLOTS.slice(0, 4), primary(27103)], ranges });
  });

  it('after a failover the promoted replica owns the slots and the old primary is a slotless failed node', () => {
    const ranges = MIGRATED(at(27101), at(27105), at(27103));
    checkRecorded('failover', 'shards', { nodes: FAILOVER_SHARDS('online'), ranges });
    checkRecorded('failover', 'slots', { nodes: FAILOVER_SLOTS, ranges });
  });

  it('a failed primary keeps its slots with its health, for the router to see; SLOTS gives no health', () => {
    const ranges = MIGRATED(at(27101), at(27105), at(27103));
    checkRecorded('primaryFailed', 'shards', { nodes: FAILOVER_SHARDS('failed'), ranges });
    checkRecorded('primaryFailed', 'slots', { nodes: FAILOVER_SLOTS, ranges });
  });

  it('`?` endpoints (hostname preferred, none announced) are unusable: their slots stay unassigned', () => {
    const ranges = [
      '0-99 -',
      '100-100 localhost:27102',
      '101-5460 -',
      '5461-10922 localhost:27102',
      '10923-16383 -',
    ];
    const nodes = ['localhost:27102 primary online replicas'];
    checkRecorded('hostname', 'shards', { nodes, ranges });
    checkRecorded('hostname', 'slots', { nodes, ranges });
  });

  it('a blank endpoint (unknown-endpoint, a lone node) is the host that was asked', () => {
    const recorded = RECORDED.unknownEndpoint;
    for (const [command, parse] of [
      ['shards', parseShardsReply],
      ['slots', parseSlotsReply],
    ] as const) {
      for (const [how, reply] of everyDecoding(recorded[command])) {
        const topology = parse(reply, { node: { host: LOCAL, port: 27101 }, blankHost: 'seed.example' });
        const hosts = new Set(topology.nodes.map((node) => node.endpoint.host));
        expect([...hosts], `${command} ${how}`).toEqual(['seed.example']);
        expect(
          topology.nodes.map((node) => node.announced),
          how,
        ).toEqual(topology.nodes.map((node) => node.endpoint));
        // Without blankHost, the host dialled stands in.
        expect(parse(reply, { node: { host: 'dialled.example', port: 27101 } }).nodes[0]!.endpoint.host).toBe(
          'dialled.example',
        );
      }
    }
    checkRecorded('lone', 'shards', { nodes: [primary(27107)], ranges: ['0-16383 -'] });
    checkRecorded('lone', 'slots', { nodes: [], ranges: ['0-16383 -'] });
    const loneRanges = ['0-4 -', `5-7 ${at(27107)}`, '8-16383 -'];
    checkRecorded('loneWithSlots', 'shards', { nodes: [primary(27107)], ranges: loneRanges });
    checkRecorded('loneWithSlots', 'slots', { nodes: [primary(27107)], ranges: loneRanges });
    checkRecorded('loneUnknownEndpoint', 'slots', { nodes: [primary(27107)], ranges: loneRanges });
  });

  it('gives node ids, frozen nodes and replica lists, and a lookup by address', () => {
    const topology = parseShardsReply(decodeReply(RECORDED.stable.shards.resp3), {
      node: { host: LOCAL, port: 27101 },
    });
    expect(topology.nodes[0]!.id).toBe('f9d0d654a221c76b65ce27f7978adc9b92fecb3d');
    expect(
      topology.nodes.every((node, index) => node.index === index && topology.byKey.get(node.key) === index),
    ).toBe(true);
    expect(Object.isFrozen(topology)).toBe(true);
    expect(Object.isFrozen(topology.nodes)).toBe(true);
    expect(Object.isFrozen(topology.nodes[0])).toBe(true);
    expect(Object.isFrozen(topology.nodes[0]!.replicas)).toBe(true);
    const slotsTopology = parseSlotsReply(decodeReply(RECORDED.stable.slots.resp2), {
      node: { host: LOCAL, port: 27101 },
    });
    expect(slotsTopology.nodes[0]!.id).toBe('f619f36dd04324aa9d18d5fbbd5bee1f962531c3');
  });
});

describe('cluster.addressMap', () => {
  it('rewrites every announced address, blank ones after they take the asked host', () => {
    const seen: string[] = [];
    const addressMap = ({ host, port }: { host: string; port: number }) => {
      seen.push(`${host}:${port}`);
      return { host: 'proxy.local', port: port + 1000 };
    };
    for (const [command, parse] of [
      ['shards', parseShardsReply],
      ['slots', parseSlotsReply],
    ] as const) {
      seen.length = 0;
      const topology = parse(decodeReply(RECORDED.unknownEndpoint[command].resp3), {
        node: { host: 'proxy.local', port: 28101 },
        blankHost: LOCAL,
        addressMap,
      });
      expect(summarize(topology).ranges, command).toEqual(
        MIGRATED('proxy.local:28101', 'proxy.local:28102', 'proxy.local:28103'),
      );
      expect(topology.nodes[0]!.announced.host, command).toBe(LOCAL);
      expect(topology.nodes[0]!.key, command).toMatch(/^proxy\.local:281\d\d$/);
      expect(
        seen.every((address) => address.startsWith(`${LOCAL}:271`)),
        command,
      ).toBe(true);
    }
  });

  it('is a RespireConfigurationError when it throws or returns no endpoint', () => {
    const reply = decodeReply(RECORDED.stable.shards.resp3);
    const source = { node: { host: LOCAL, port: 27101 } };
    const cause = new Error('no route');
    expect(() =>
      parseShardsReply(reply, {
        ...source,
        addressMap: () => {
          throw cause;
        },
      }),
    ).toThrow(
      expect.objectContaining({ name: 'RespireConfigurationError', option: 'cluster.addressMap', cause }),
    );
    for (const bad of [
      null,
      'a:1',
      { host: '', port: 1 },
      { host: 'h', port: 0 },
      { host: 'h', port: 1.5 },
      { host: 'h' },
    ]) {
      expect(
        () => parseShardsReply(reply, { ...source, addressMap: () => bad as never }),
        JSON.stringify(bad),
      ).toThrow(/cluster\.addressMap returned .* for 127\.0\.0\.1:27103/);
    }
  });
});
