// What a worker reports about its own process, and when that voids a Respire figure.
import { describe, expect, it } from 'vitest';
import { isolationFault, loadedPackages } from '../../bench/isolation-check.js';
import { parseWorkerArgv, workerArgv } from '../../bench/worker-protocol.js';

describe('loadedPackages', () => {
  it('names each package once, scoped ones with their scope, nested ones by the innermost', () => {
    expect(
      loadedPackages([
        '/repo/build/bench/worker.js',
        '/repo/node_modules/ioredis/built/index.js',
        '/repo/node_modules/ioredis/built/Redis.js',
        '/repo/node_modules/@redis/client/dist/index.js',
        '/repo/node_modules/a/node_modules/denque/index.js',
        'C:\\repo\\node_modules\\redis-parser\\index.js',
        '/repo/node_modules/',
      ]),
    ).toEqual(['@redis/client', 'denque', 'ioredis', 'redis-parser']);
  });
});

describe('isolationFault', () => {
  it('accepts only a process with no package and a fast String.prototype', () => {
    expect(isolationFault({ packages: [], stringPrototypeFast: true })).toBeUndefined();
    expect(isolationFault({ packages: ['ioredis', 'denque'], stringPrototypeFast: false })).toBe(
      'loaded ioredis, denque from node_modules',
    );
    expect(isolationFault({ packages: [], stringPrototypeFast: false })).toMatch(/dictionary mode/);
  });
});

describe('worker arguments', () => {
  it('round-trip, names with spaces and commas included', () => {
    const args = {
      module: '/b/suites/x.js',
      suite: 'client',
      contender: 'redis-benchmark -c 1 -P 16',
      quick: true,
    };
    expect(parseWorkerArgv(workerArgv(args))).toEqual(args);
    expect(parseWorkerArgv(workerArgv({ ...args, quick: false })).quick).toBe(false);
    expect(() => parseWorkerArgv(['--suite', 'x'])).toThrow('worker needs --module');
    expect(() => parseWorkerArgv(['--suite'])).toThrow('bad worker argument --suite');
  });
});
