// Issue 11 "Routing" (keys from the command table, `COMMAND GETKEYS` for movable-key shapes) with a
// Redis 6 server: its `COMMAND INFO` rows have 7 fields (name, arity, flags, first key, last key,
// step, ACL categories), without Redis 7's tips, key specs and subcommands. Such a row was refused
// as malformed, so a command the client's table does not know went to any primary (then MOVED).
// Now the legacy key positions route it, and a `movablekeys` flag asks `COMMAND GETKEYS`.
// Fake servers, since Redis 7.0 (the kit's) cannot produce 6.x rows: two primaries of one cluster
// that, as Redis 6 does, know no CLUSTER SHARDS and answer CLUSTER SLOTS.
import { afterEach, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/cluster/key-slot.js';
import { RespireClient } from '../../src/index.js';
import { type FakeServer, HELLO_3_REPLY, startFakeServer } from '../kit/fake-server.js';

type Reply = string | number | null | readonly Reply[];
function resp(value: Reply): string {
  if (value === null) return '_\r\n';
  if (typeof value === 'number') return `:${value}\r\n`;
  if (typeof value === 'string') return `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
  return `*${value.length}\r\n${value.map(resp).join('')}`;
}

/** Redis 6.2's COMMAND INFO rows of two module commands the client's table does not know. */
const ROWS: Record<string, Reply> = {
  'mod.put': ['mod.put', -3, ['write'], 1, 1, 1, ['@write']],
  // Keys anywhere: only the server can tell them.
  'mod.merge': ['mod.merge', -2, ['write', 'movablekeys'], 0, 0, 0, ['@write']],
};

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Two Redis 6 primaries: the first owns slots 0-8191, the second 8192-16383. */
async function redis6Cluster(): Promise<[FakeServer, FakeServer]> {
  const ports: number[] = [];
  const node = (port: number, id: string): Reply => ['127.0.0.1', port, id.repeat(40)];
  const answer = (args: string[]): string | undefined => {
    const [name = '', sub = ''] = args.map((arg) => arg.toUpperCase());
    if (name === 'HELLO') return HELLO_3_REPLY.replace('7.0.15', '6.2.14');
    if (name === 'CLUSTER' && sub === 'SLOTS')
      return resp([
        [0, 8191, node(ports[0]!, 'a')],
        [8192, 16383, node(ports[1]!, 'b')],
      ]);
    if (name === 'CLUSTER')
      return `-ERR Unknown subcommand or wrong number of arguments for '${args[1]}'\r\n`;
    if (name === 'COMMAND' && sub === 'INFO') return resp([ROWS[args[2]!.toLowerCase()] ?? null]);
    // MOD.MERGE's keys are its arguments with a hash tag.
    if (name === 'COMMAND' && sub === 'GETKEYS')
      return resp(args.slice(3).filter((arg) => arg.includes('{')));
    if (name.startsWith('MOD.')) return '+OK\r\n';
    return `-ERR unknown command '${args[0]}'\r\n`;
  };
  for (let i = 0; i < 2; i++) {
    const server = await startFakeServer({ script: [], fallback: answer });
    servers.push(server);
    ports.push(server.port);
  }
  return [servers[0]!, servers[1]!];
}

/** A key of the given half of the slots. */
function keyIn(half: 0 | 1, name: string): string {
  for (let i = 0; ; i++) {
    const key = `{${name}${i}}`;
    if (keySlot(key) < 8192 === (half === 0)) return key;
  }
}

function received(server: FakeServer, name: string): string[][] {
  return server.commands.filter((args) => args[0]?.toLowerCase() === name);
}

/** A Cluster client whose seed is `seed`. */
function clusterClient(seed: FakeServer): Promise<RespireClient> {
  return RespireClient.connect({
    endpoints: [{ host: seed.host, port: seed.port }],
    useCluster: true,
    cluster: { refreshInterval: 0 },
  });
}

describe('a Redis 6 cluster’s COMMAND INFO rows', () => {
  it('route a command the table does not know by its first/last/step key positions', async () => {
    const [a, b] = await redis6Cluster();
    await using redis = await clusterClient(a);
    const keys = [keyIn(0, 'p'), keyIn(1, 'p'), keyIn(1, 'q'), keyIn(0, 'q')];
    for (const key of keys) expect(await redis.send(['MOD.PUT', key, 'v'])).toBe('OK');
    expect(received(a, 'mod.put').map((args) => args[1])).toEqual([keys[0], keys[3]]);
    expect(received(b, 'mod.put').map((args) => args[1])).toEqual([keys[1], keys[2]]);
    expect([...received(a, 'command'), ...received(b, 'command')]).toHaveLength(1);
  });

  it('ask COMMAND GETKEYS for a movablekeys command, and route it by the keys it names', async () => {
    const [a, b] = await redis6Cluster();
    await using redis = await clusterClient(a);
    const inB = keyIn(1, 'm');
    expect(await redis.send(['MOD.MERGE', 'x', inB, 'y'])).toBe('OK');
    expect(await redis.send(['MOD.MERGE', keyIn(0, 'm'), 'z'])).toBe('OK');
    expect(received(b, 'mod.merge')).toEqual([['MOD.MERGE', 'x', inB, 'y']]);
    expect(received(a, 'mod.merge')).toHaveLength(1);
    const getkeys = [...a.commands, ...b.commands].filter((args) => args[1]?.toUpperCase() === 'GETKEYS');
    expect(getkeys).toHaveLength(2);
  });
});
