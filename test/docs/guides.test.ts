// The guides in docs/ (issue 17): every example is a file under docs/examples/, compiled by the
// typecheck (tsconfig.json includes it) and run here against real servers; each guide shows its
// examples verbatim, in a ```ts block whose first line names the file, with `respire` in place of
// the repository's relative import, so the text and the tested code cannot drift apart.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as breakerExample from '../../docs/examples/circuit-breaker.js';
import * as clusterExample from '../../docs/examples/cluster.js';
import * as gettingStarted from '../../docs/examples/getting-started.js';
import * as migrating from '../../docs/examples/migrating.js';
import * as observability from '../../docs/examples/observability.js';
import * as sentinelExample from '../../docs/examples/sentinel.js';
import { RespireCircuitOpenError } from '../../src/index.js';
import { useRedisCluster, useRedisSentinel, useRedisServer } from '../kit/vitest-redis.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const EXAMPLES = path.join(DOCS, 'examples');

/** Each ```ts block of a guide that opens with `// docs/examples/<file>`: the file and the block. */
function exampleBlocks(markdown: string): { file: string; code: string }[] {
  const blocks: { file: string; code: string }[] = [];
  for (const match of markdown.matchAll(/```ts\n(\/\/ docs\/examples\/([\w-]+\.ts)[^\n]*\n[\s\S]*?)```/g)) {
    blocks.push({ file: match[2]!, code: match[1]! });
  }
  return blocks;
}

/** An example as a guide shows it: imported from the package, not from the repository's src/. */
function asPublished(source: string): string {
  return source
    .replaceAll("'../../src/index.js'", "'respire'")
    .replaceAll("'../../src/", "'respire/")
    .replaceAll("/index.js'", "'");
}

describe('the guides show the tested examples verbatim', () => {
  const guides = readdirSync(DOCS).filter((file) => file.endsWith('.md') && file !== 'README.md');
  const shown = new Set<string>();

  it.each(guides)('%s', (guide) => {
    const blocks = exampleBlocks(readFileSync(path.join(DOCS, guide), 'utf8'));
    expect(blocks.length).toBeGreaterThan(0);
    for (const { file, code } of blocks) {
      expect(code).toBe(asPublished(readFileSync(path.join(EXAMPLES, file), 'utf8')));
      shown.add(file);
    }
  });

  it('every example appears in a guide, and every guide is listed in docs/README.md', () => {
    for (const guide of guides) {
      for (const { file } of exampleBlocks(readFileSync(path.join(DOCS, guide), 'utf8'))) shown.add(file);
    }
    expect([...shown].sort()).toEqual(readdirSync(EXAMPLES).sort());
    const index = readFileSync(path.join(DOCS, 'README.md'), 'utf8');
    for (const guide of guides) expect(index).toContain(`(${guide})`);
  });
});

describe('examples against a standalone server', () => {
  const server = useRedisServer();
  const url = () => `redis://${server.host}:${server.port}`;

  it('getting started', async () => {
    await expect(gettingStarted.main(url())).resolves.toEqual({
      greeting: 'hello',
      user: { name: 'Ada', visits: '1' },
      encoding: 'embstr',
      visits: 2,
      ttl: 60,
      counters: [1, 2],
      code: 'WRONGTYPE',
    });
  });

  it('the circuit breaker: cache, then the source while the circuit is open', async () => {
    const redis = await breakerExample.connectCache(url(), {
      ...breakerExample.CACHE_BREAKER,
      minimumFailureCount: 2,
    });
    const lines: string[] = [];
    const stop = breakerExample.logTransitions(redis, (line) => lines.push(line));
    try {
      const load = async () => 'from the database';
      expect(await breakerExample.readThrough(redis, 'page:1', load)).toEqual({
        value: 'from the database',
        from: 'source',
      });
      expect(await breakerExample.readThrough(redis, 'page:1', load)).toEqual({
        value: 'from the database',
        from: 'cache',
      });
      server.kill('SIGSTOP'); // Redis stops answering: reads time out, then the circuit opens
      try {
        // Timeouts and then lost connections count as failures until the rate trips the circuit;
        // from then on reads skip Redis at once.
        const reads: breakerExample.Read[] = [];
        while (reads.length < 10 && reads.at(-1)?.reason !== RespireCircuitOpenError.name) {
          reads.push(await breakerExample.readThrough(redis, 'page:1', load));
        }
        expect(reads.every((read) => read.from === 'source' && read.value === 'from the database')).toBe(
          true,
        );
        expect(reads[0]!.reason).toBe('RespireTimeoutError');
        expect(reads.at(-1)!.reason).toBe(RespireCircuitOpenError.name);
        for (const read of reads) {
          expect(['RespireTimeoutError', 'RespireConnectionError', RespireCircuitOpenError.name]).toContain(
            read.reason,
          );
        }
        expect(lines).toEqual(['redis circuit closed -> open']);
      } finally {
        server.kill('SIGCONT');
      }
    } finally {
      stop();
      redis.destroy();
    }
  });

  it('observability: the SDK meter counts the failed command; the subscriber logs it', async () => {
    const { log, counters } = await observability.main(url());
    expect(log).toEqual([
      expect.stringMatching(/^LPUSH to 127\.0\.0\.1 failed \(WRONGTYPE\) after \d+\.\d ms$/),
    ]);
    expect(counters).toContainEqual({
      name: 'redis.client.errors',
      points: [
        {
          value: 1,
          attributes: expect.objectContaining({ 'error.type': 'WRONGTYPE', 'db.system.name': 'redis' }),
        },
      ],
    });
  });

  it('migrating: what each client answers', async () => {
    expect(await migrating.main(url())).toEqual({
      ioredis: {
        set: 'OK',
        missing: null,
        incr: 1,
        expire: 1,
        hgetall: { a: '1' },
        zrangeWithScores: ['x', '1', 'y', '2'],
        sismember: 0,
      },
      nodeRedis: {
        set: 'OK',
        missing: null,
        incr: 2,
        expire: 1,
        hgetall: { a: '1' },
        zrangeWithScores: [
          { value: 'x', score: 1 },
          { value: 'y', score: 2 },
        ],
        sismember: 0,
      },
      respire: {
        set: 'OK',
        missing: null,
        incr: 3,
        expire: true,
        hgetall: { a: '1' },
        zrangeWithScores: [
          { member: 'x', score: 1 },
          { member: 'y', score: 2 },
        ],
        sismember: false,
      },
    });
  });
});

describe('examples against a Redis Cluster', () => {
  const cluster = useRedisCluster({ replicasPerPrimary: 0 });

  it('cluster', async () => {
    const seeds = cluster.nodes.slice(0, 2).map((node) => `${node.host}:${node.port}`);
    await expect(clusterExample.main(seeds)).resolves.toEqual({
      names: ['Ada', 'Grace', 'Linus'],
      committed: ['OK', 42],
      sameSlot: true,
      code: 'CROSSSLOT',
      users: ['user:1', 'user:2', 'user:3'],
    });
  });
});

describe('examples against Sentinel', () => {
  const group = useRedisSentinel({ replicas: 1, sentinels: 1, quorum: 1 });

  it('sentinel', async () => {
    await expect(sentinelExample.main([...group.sentinels], group.serviceName)).resolves.toEqual({
      greeting: 'hello from the primary',
      role: 'master',
    });
  });
});
