// Topology replies Redis 7.0 on loopback does not send us (TLS ports, fields of later servers) and
// malformed ones: which port is dialled, what is ignored, and that a reply of the wrong shape is a
// RespireProtocolError naming the node asked, never a crash. Built as decoded values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseShardsReply } from '../../src/cluster/shards-reply.js';
import { parseSlotsReply } from '../../src/cluster/slots-reply.js';
import { RespireError, RespireProtocolError, RespireServerError } from '../../src/errors.js';
import type { RespValue } from '../../src/resp/types.js';
import { summarize } from './topology-summary.js';

const SOURCE = { node: { host: '10.0.0.9', port: 7000 } };

function shardNode(fields: Record<string, RespValue>): Map<RespValue, RespValue> {
  return new Map(
    Object.entries({
      id: 'a'.repeat(40),
      ip: '10.0.0.1',
      endpoint: '10.0.0.1',
      role: 'master',
      health: 'online',
      ...fields,
    }),
  );
}

function shards(...entries: [RespValue[], RespValue[]][]): RespValue[] {
  return entries.map(
    ([slots, nodes]) =>
      new Map<RespValue, RespValue>([
        ['slots', slots],
        ['nodes', nodes],
      ]),
  );
}

describe('CLUSTER SHARDS ports', () => {
  const node = (fields: Record<string, RespValue>) => shards([[0, 16383], [shardNode(fields)]]);

  it('dials tls-port with TLS, port without, and leaves out a node with no port for its transport', () => {
    const both = node({ port: 6379, 'tls-port': 6380 });
    expect(parseShardsReply(both, { ...SOURCE, tls: true }).nodes[0]!.key).toBe('10.0.0.1:6380');
    expect(parseShardsReply(both, SOURCE).nodes[0]!.key).toBe('10.0.0.1:6379');
    // A TLS server announcing one port (tls-cluster off, or an older server): that port.
    expect(parseShardsReply(node({ port: 6379 }), { ...SOURCE, tls: true }).nodes[0]!.key).toBe(
      '10.0.0.1:6379',
    );
    const tlsOnly = parseShardsReply(node({ 'tls-port': 6380 }), SOURCE);
    expect(summarize(tlsOnly)).toEqual({ nodes: [], ranges: ['0-16383 -'] });
  });

  it('ignores fields it does not know and takes ip when there is no endpoint', () => {
    const withExtras = node({
      port: 6379,
      hostname: 'h.example',
      'replication-offset': 5,
      'future-field': [1, new Map()],
    });
    withExtras.push(
      new Map<RespValue, RespValue>([
        ['slots', []],
        ['nodes', []],
        [7, 'integer key'],
      ]),
    );
    expect(summarize(parseShardsReply(withExtras, SOURCE)).nodes).toEqual([
      '10.0.0.1:6379 primary online replicas',
    ]);
    const noEndpoint = shardNode({ port: 6379, ip: '10.0.0.2' });
    noEndpoint.delete('endpoint');
    expect(parseShardsReply(shards([[], [noEndpoint]]), SOURCE).nodes[0]!.key).toBe('10.0.0.2:6379');
  });

  it('prefers an online primary when a shard lists two, and trusts no health it does not know', () => {
    const reply = shards([
      [0, 16383],
      [
        shardNode({ port: 1, health: 'failed' }),
        shardNode({ port: 2 }),
        shardNode({ port: 3, role: 'replica', health: 'resyncing' }),
        shardNode({ port: 4, role: 'slave' }),
      ],
    ]);
    expect(summarize(parseShardsReply(reply, SOURCE))).toEqual({
      nodes: [
        '10.0.0.1:2 primary online replicas 10.0.0.1:4',
        '10.0.0.1:3 replica failed of 10.0.0.1:2',
        '10.0.0.1:4 replica online of 10.0.0.1:2',
      ],
      ranges: ['0-16383 10.0.0.1:2'],
    });
  });

  it('numbers sent as text are read as numbers', () => {
    const reply = shards([['0', Buffer.from('16383')], [shardNode({ port: '6379' })]]);
    expect(summarize(parseShardsReply(reply, SOURCE)).ranges).toEqual(['0-16383 10.0.0.1:6379']);
  });
});

describe('malformed topology replies', () => {
  const good = () => shardNode({ port: 6379 });
  const cases: [string, RespValue, RegExp][] = [
    ['not an array', 'OK', /not an array of shards/],
    ['a server error', RespireServerError.fromReply('ERR unknown subcommand'), /not an array of shards/],
    ['a shard that is no map', ['slots'], /shard 0 is not a map/],
    ['a shard without nodes', [new Map([['slots', []]])], /shard 0 has no "nodes" array/],
    ['an odd slot list', shards([[1], [good()]]), /odd number of slot bounds/],
    ['a reversed range', shards([[9, 3], [good()]]), /slot range 9-3/],
    ['a slot past 16383', shards([[0, 16384], [good()]]), /slot range 0-16384/],
    ['a negative slot', shards([[-1, 3], [good()]]), /slot range -1-3/],
    ['a node that is no map', shards([[], ['node']]), /node 0 is not a map/],
    ['a node without id', shards([[], [new Map([['port', 1]])]]), /node 0 has no "id"/],
    ['an unknown role', shards([[], [shardNode({ port: 1, role: 'leader' })]]), /role leader/],
    ['a port too large', shards([[], [shardNode({ port: 70000 })]]), /port 70000/],
    ['a port that is text', shards([[], [shardNode({ port: 'six' })]]), /port six/],
    [
      'an endpoint that is a number',
      shards([[], [shardNode({ port: 1, endpoint: 5 })]]),
      /endpoint that is not a string/,
    ],
  ];
  for (const [what, reply, message] of cases) {
    it(`CLUSTER SHARDS: ${what}`, () => {
      expect(() => parseShardsReply(reply, SOURCE)).toThrow(message);
      expect(() => parseShardsReply(reply, SOURCE)).toThrow(
        expect.objectContaining({
          name: 'RespireProtocolError',
          endpoint: SOURCE.node,
          message: expect.stringContaining('CLUSTER SHARDS reply from 10.0.0.9:7000 is malformed'),
        }),
      );
    });
  }

  const slotCases: [string, RespValue, RegExp][] = [
    ['not an array', null, /not an array of slot ranges/],
    ['a range without a primary', [[0, 5]], /range 0 is not \[start, end, primary/],
    ['a reversed range', [[5, 0, ['h', 1]]], /range 0 has the slot range 5-0/],
    ['a node that is no array', [[0, 5, 'h:1']], /primary that is not \[host, port/],
    ['a host that is a number', [[0, 5, [1, 1]]], /primary whose host is not a string/],
    ['a bad port', [[0, 5, ['h', 1], ['h', -2]]], /replica with the port -2/],
    ['an id that is a number', [[0, 5, ['h', 1, 7]]], /primary whose id is not a string/],
  ];
  for (const [what, reply, message] of slotCases) {
    it(`CLUSTER SLOTS: ${what}`, () => {
      expect(() => parseSlotsReply(reply, SOURCE)).toThrow(message);
      expect(() => parseSlotsReply(reply, SOURCE)).toThrow(RespireProtocolError);
    });
  }

  it('any decoded value makes either parser return a topology or throw a RespireError, nothing else', () => {
    const { value } = fc.letrec<{ value: RespValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom<RespValue>(
          'slots',
          'nodes',
          'id',
          'port',
          'tls-port',
          'endpoint',
          'ip',
          'role',
          'health',
          'master',
          'replica',
          'online',
          'fail',
          '?',
          '',
          null,
          0,
          16383,
          16384,
          -1,
          65536,
          true,
        ),
        fc.integer({ min: -2, max: 70000 }),
        fc.string({ maxLength: 6 }),
        fc.string({ maxLength: 6 }).map((text) => Buffer.from(text)),
        fc.bigInt(),
        fc.array(tie('value'), { maxLength: 8 }),
        fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 6 }).map((pairs) => new Map(pairs)),
      ),
    }));
    fc.assert(
      fc.property(value, fc.boolean(), (reply, tls) => {
        for (const parse of [parseShardsReply, parseSlotsReply]) {
          try {
            const topology = parse(reply, { ...SOURCE, tls });
            expect(topology.slots.length).toBe(16384);
          } catch (error) {
            expect(error).toBeInstanceOf(RespireError);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
