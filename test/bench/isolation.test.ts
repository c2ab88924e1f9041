// Isolated suites end to end, on the compiled runner: every contender in a process of its own,
// kept for all cases of the suite; a Respire process that loaded a peer or ran with a slowed
// String.prototype voids the suite; a worker that dies, hangs up or miscounts fails it clearly.
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../bench/report.js';
import { type CompiledBench, compileBench, runCompiledBench } from './compiled-bench.js';

const run = promisify(execFile);

/**
 * A suite module in plain JavaScript, dropped beside the compiled suites. Its contenders write
 * what their process looked like at each prepare to `FIXTURE_LOG`; `behaviour` says what each
 * contender does to its process first.
 */
function fixtureSuite(name: string, behaviour: Record<string, string>): string {
  return `
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { inspectIsolation } from '../isolation-check.js';
import { syncPasses } from '../measure.js';
const require = createRequire(import.meta.url);
const behaviour = ${JSON.stringify(behaviour)};
const text = Buffer.alloc(4096, 'x').toString('latin1');
export const suite = {
  name: ${JSON.stringify(name)},
  plan: () => ['case A', 'case B'].map((name) => ({
    name,
    contenders: Object.keys(behaviour),
    measure: { warmupMs: 0, rounds: 3, roundMs: 1 },
  })),
  async prepare(caseName, contender) {
    const act = behaviour[contender];
    if (act === 'load a peer') require('redis-parser');
    if (act === 'extend String') globalThis.kept = class Verbatim extends String {};
    if (act === 'exit') process.exit(3);
    const seen = { caseName, contender, pid: process.pid, ...inspectIsolation() };
    appendFileSync(process.env.FIXTURE_LOG, JSON.stringify(seen) + '\\n');
    let sum = 0;
    return {
      runFor: syncPasses(() => { for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i); }),
      units: [{ unit: 'strings/s', perPass: 1 }],
      check(passes) {
        if (act === 'miscount') throw new Error(contender + ' counted ' + (passes + 1) + ' passes, expected ' + passes);
        if (sum !== passes * 4096 * 120) throw new Error('lost passes');
      },
    };
  },
};
`;
}

interface Seen {
  caseName: string;
  contender: string;
  pid: number;
  packages: string[];
  stringPrototypeFast: boolean;
}

let bench: CompiledBench;
let log: string;

beforeAll(async () => {
  bench = await compileBench();
  log = bench.file('fixture-log.jsonl');
  const fixtures: Record<string, Record<string, string>> = {
    'fixture-shared': { respire: 'nothing', ioredis: 'load a peer', 'ioredis too': 'extend String' },
    'fixture-leaky': { respire: 'load a peer' },
    'fixture-string': { 'respire CommandEncoder': 'extend String' },
    'fixture-exit': { respire: 'nothing', peer: 'exit' },
    'fixture-miscount': { peer: 'miscount' },
  };
  for (const [name, behaviour] of Object.entries(fixtures)) {
    await writeFile(bench.file(`bench/suites/${name}.js`), fixtureSuite(name, behaviour));
  }
}, 60_000);

afterAll(async () => {
  await bench?.remove();
});

async function runFixture(name: string): Promise<{ code: number; stderr: string; seen: Seen[] }> {
  await writeFile(log, '');
  const out = bench.file(`${name}.json`);
  const outcome = await runCompiledBench(bench, ['--only', name, '--json', '--out', out], {
    FIXTURE_LOG: log,
  });
  const seen = (await readFile(log, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Seen);
  return { code: outcome.code, stderr: outcome.stderr, seen };
}

describe('an isolated suite', () => {
  it('runs each contender in its own process, kept for every case, untouched by the others', async () => {
    const { code, stderr, seen } = await runFixture('fixture-shared');
    expect(stderr).not.toMatch(/failed/);
    expect(code).toBe(0);
    const pids = (contender: string) => [
      ...new Set(seen.filter((s) => s.contender === contender).map((s) => s.pid)),
    ];
    expect(seen).toHaveLength(6);
    const [respire, ioredis, other] = [pids('respire'), pids('ioredis'), pids('ioredis too')];
    expect([respire.length, ioredis.length, other.length]).toEqual([1, 1, 1]);
    expect(new Set([respire[0], ioredis[0], other[0], process.pid]).size).toBe(4);
    // In case B the peers' processes are long since slowed and loaded; Respire's is not.
    const respireB = seen.find((s) => s.contender === 'respire' && s.caseName === 'case B')!;
    expect(respireB).toMatchObject({ packages: [], stringPrototypeFast: true });
    expect(seen.find((s) => s.contender === 'ioredis' && s.caseName === 'case B')!.packages).toEqual([
      'redis-errors',
      'redis-parser',
    ]);
    expect(seen.find((s) => s.contender === 'ioredis too')!.stringPrototypeFast).toBe(false);
    expect(stderr).toContain('ioredis too ran with a slow String.prototype');
  });

  it('writes one row per case, contender and unit, in plan order', async () => {
    await writeFile(log, '');
    const out = bench.file('rows.json');
    const outcome = await runCompiledBench(bench, ['--only', 'fixture-shared', '--json', '--out', out], {
      FIXTURE_LOG: log,
    });
    const report = JSON.parse(outcome.stdout) as BenchReport;
    expect(report.results.map((row) => `${row.case}/${row.client}/${row.unit}`)).toEqual(
      ['case A', 'case B'].flatMap((caseName) =>
        ['respire', 'ioredis', 'ioredis too'].map((client) => `${caseName}/${client}/strings/s`),
      ),
    );
    expect(report.results.every((row) => row.value > 0 && row.suite === 'fixture-shared')).toBe(true);
  });

  it('voids Respire’s figures when its process loaded a package', async () => {
    const { code, stderr } = await runFixture('fixture-leaky');
    expect(code).toBe(1);
    expect(stderr).toContain(
      "respire's process loaded redis-errors, redis-parser from node_modules: its figures are void",
    );
  });

  it('voids them when its String.prototype went slow', async () => {
    const { code, stderr } = await runFixture('fixture-string');
    expect(code).toBe(1);
    expect(stderr).toContain('respire CommandEncoder');
    expect(stderr).toContain('String.prototype in dictionary mode');
  });

  it('fails the suite when a worker exits, and leaves no worker behind', async () => {
    const { code, stderr, seen } = await runFixture('fixture-exit');
    expect(code).toBe(1);
    expect(stderr).toContain('fixture-exit / peer: exited (3) before answering');
    const respire = seen.find((s) => s.contender === 'respire')!;
    expect(() => process.kill(respire.pid, 0)).toThrow();
  });

  it('fails the suite when a contender’s check finds its work wrong', async () => {
    const { code, stderr } = await runFixture('fixture-miscount');
    expect(code).toBe(1);
    expect(stderr).toMatch(/peer counted \d+ passes, expected \d+/);
  });
});

describe('the real suite modules', () => {
  it('load no package and leave String.prototype fast in the process that imports them', async () => {
    const suites = bench.file('bench/suites');
    const files = (await readdir(suites)).filter(
      (file) => file.endsWith('.js') && !file.startsWith('fixture-'),
    );
    expect(files).toEqual(expect.arrayContaining(['client.js', 'resp-decode.js', 'resp-encode.js']));
    const script = [
      ...files.map((file, i) => `import * as m${i} from ${JSON.stringify(`${suites}/${file}`)};`),
      `import { inspectIsolation } from ${JSON.stringify(bench.file('bench/isolation-check.js'))};`,
      'console.log(JSON.stringify(inspectIsolation()));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual({ packages: [], stringPrototypeFast: true });
  });
});
