// Architecture checks: the layering rules of .dependency-cruiser.cjs (STYLE.md "Layers"), the size
// bound on source files and zero runtime dependencies; each check also runs on a bad fixture to
// prove it can fail.
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RULES_FILE = join(ROOT, '.dependency-cruiser.cjs');
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
/** STYLE.md aims at about 300 lines a file; this is the hard stop. */
const MAX_LINES = 500;

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

function scratchDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `respire-${label}-`));
  scratchDirs.push(dir);
  return dir;
}

/** Project-relative paths, with `/`, of every file under `dir`. */
function filesUnder(projectDir: string, dir: string): string[] {
  return readdirSync(join(projectDir, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(projectDir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

interface ResolvedImport {
  /** Project-relative path of the importing file. */
  from: string;
  specifier: string;
  /** Absolute path the compiler resolved the specifier to; `null` for built-ins and the unresolvable. */
  resolved: string | null;
}

const RESOLVING = /^======== Resolving module '(.+)' from '(.+)'\. ========$/;
const RESOLVED =
  /^======== Module name '(.+)' was successfully resolved to '(.+?)'(?: with Package ID '.+')?\. ========$/;
const NOT_RESOLVED = /^======== Module name '(.+)' was not resolved\. ========$/;

/**
 * Every module specifier in the project's `src/`, as resolved by the TypeScript compiler, type-only
 * imports included (see .dependency-cruiser.cjs for why the compiler and not dependency-cruiser
 * reads the sources). Type errors do not matter here; `npm run typecheck` reports them.
 */
function resolvedImports(projectDir: string, tsconfig: string): ResolvedImport[] {
  const run = spawnSync(
    process.execPath,
    [TSC, '-p', tsconfig, '--noEmit', '--traceResolution', '--singleThreaded', '--pretty', 'false'],
    { cwd: projectDir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  if (run.error !== undefined) throw run.error;
  const srcDir = join(projectDir, 'src') + sep;
  const imports: ResolvedImport[] = [];
  let pending: { from: string; specifier: string } | undefined;
  for (const line of run.stdout.split('\n')) {
    const resolving = RESOLVING.exec(line);
    if (resolving !== null) {
      pending = { specifier: resolving[1]!, from: resolving[2]! };
      continue;
    }
    const resolved = RESOLVED.exec(line);
    const notResolved = resolved === null ? NOT_RESOLVED.exec(line) : null;
    const outcome = resolved ?? notResolved;
    if (outcome === null || pending === undefined) continue;
    if (outcome[1] !== pending.specifier) {
      throw new Error(
        `tsc trace out of order: resolving ${pending.specifier}, then a result for ${outcome[1]}`,
      );
    }
    if (pending.from.startsWith(srcDir)) {
      imports.push({
        from: relative(projectDir, pending.from).split(sep).join('/'),
        specifier: pending.specifier,
        resolved: resolved === null ? null : resolved[2]!,
      });
    }
    pending = undefined;
  }
  if (run.status !== 0 && imports.length === 0) {
    throw new Error(`tsc failed without tracing any import:\n${run.stdout}${run.stderr}`);
  }
  return imports;
}

/** `src/a/b.ts` -> `src/a/b.js`: the name of a module's stand-in in the mirror. */
function mirrorName(path: string): string {
  return path.replace(/\.([cm]?)ts$/, '.$1js').replace(/\.tsx$/, '.jsx');
}

/**
 * Writes a JavaScript mirror of `src/` under `mirrorDir`: one module per source module, holding one
 * `import` per import of the original, pointing at the resolved module's stand-in (files in the
 * project) or at the specifier itself (packages, built-ins, the unresolvable). Returns the map
 * from stand-in names back to source names.
 */
function writeMirror(projectDir: string, imports: ResolvedImport[], mirrorDir: string): Map<string, string> {
  const sourceOf = new Map<string, string>();
  const lines = new Map<string, Set<string>>();
  const addModule = (path: string) => {
    const stub = mirrorName(path);
    sourceOf.set(stub, path);
    if (!lines.has(stub)) lines.set(stub, new Set());
    return stub;
  };
  for (const file of filesUnder(projectDir, 'src')) addModule(file);
  for (const { from, specifier, resolved } of imports) {
    const stub = addModule(from);
    const inProject = resolved !== null && !relative(projectDir, resolved).startsWith('..');
    const isPath = specifier.startsWith('.') || specifier.startsWith('/');
    let target = specifier;
    if (resolved !== null && inProject && (isPath || resolved.startsWith(join(projectDir, 'src') + sep))) {
      const targetStub = addModule(relative(projectDir, resolved).split(sep).join('/'));
      target = posix.relative(posix.dirname(stub), targetStub);
      if (!target.startsWith('.')) target = `./${target}`;
    }
    lines.get(stub)!.add(`import ${JSON.stringify(target)};`);
  }
  for (const [stub, imported] of lines) {
    mkdirSync(dirname(join(mirrorDir, stub)), { recursive: true });
    writeFileSync(join(mirrorDir, stub), [...imported, ''].join('\n'));
  }
  return sourceOf;
}

interface LayerCheck {
  /** One line per violation: `rule: from -> to`, cycles spelled out. */
  violations: string[];
  /** Every resolved import as `from -> to`, to show the extraction saw the code. */
  edges: string[];
}

/** Runs the rules of .dependency-cruiser.cjs over the project's `src/`. */
async function checkLayers(projectDir: string, tsconfig: string): Promise<LayerCheck> {
  const imports = resolvedImports(projectDir, tsconfig);
  const mirrorDir = scratchDir('mirror');
  const sourceOf = writeMirror(projectDir, imports, mirrorDir);
  const name = (path: string) => sourceOf.get(path) ?? path;
  const options = await extractDepcruiseOptions(RULES_FILE);
  const { output } = await cruise(['src'], { ...options, baseDir: mirrorDir });
  if (typeof output === 'string') throw new Error('dependency-cruiser returned a report, not a result');
  const result: ICruiseResult = output;
  const violations = result.summary.violations.map((violation) => {
    const path =
      violation.cycle === undefined
        ? name(violation.to)
        : violation.cycle.map((step) => name(step.name)).join(' -> ');
    return `${violation.rule.name}: ${name(violation.from)} -> ${path}`;
  });
  // The one rule dependency-cruiser cannot state (see .dependency-cruiser.cjs).
  for (const { from, specifier } of imports) {
    if (isBuiltin(specifier) && !specifier.startsWith('node:')) {
      violations.push(`node-protocol: ${from} -> ${specifier}`);
    }
  }
  const edges = imports.map(({ from, specifier, resolved }) => {
    const to = resolved === null ? specifier : relative(projectDir, resolved).split(sep).join('/');
    return `${from} -> ${to}`;
  });
  return { violations: violations.sort(), edges };
}

/** Source files longer than `maxLines`, as `path: N lines`. */
function oversizedFiles(projectDir: string, maxLines: number): string[] {
  return filesUnder(projectDir, 'src').flatMap((file) => {
    const text = readFileSync(join(projectDir, file), 'utf8');
    const count = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    return count > maxLines ? [`${file}: ${count} lines (at most ${maxLines})`] : [];
  });
}

/** Every package the manifest would install for a user, by field. */
function runtimeDependencies(manifest: Record<string, unknown>): string[] {
  const fields = ['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies'];
  return fields.flatMap((field) => {
    const value = manifest[field];
    const names = Array.isArray(value) ? value : Object.keys((value as object | undefined) ?? {});
    return names.map((name) => `${field}: ${String(name)}`);
  });
}

describe('Respire', () => {
  it('keeps to the layers, has no cycles and imports only node: built-ins', async () => {
    const { violations, edges } = await checkLayers(ROOT, 'tsconfig.esm.json');
    expect(edges).toContain('src/index.ts -> src/errors.ts');
    expect(violations, 'see .dependency-cruiser.cjs for each rule').toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    expect(filesUnder(ROOT, 'src').length).toBeGreaterThan(0);
    expect(oversizedFiles(ROOT, MAX_LINES)).toEqual([]);
  });

  it('has no runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.devDependencies).toBeDefined();
    expect(runtimeDependencies(manifest)).toEqual([]);
  });
});

/** A project whose `src/` breaks every rule once, next to imports the rules must let through. */
const BAD_SOURCES: Record<string, string> = {
  'src/index.ts': "export * from './client/client.js';\nexport { FixtureError } from './errors.js';\n",
  'src/errors.ts': 'export class FixtureError extends Error {}\n',
  'src/util/up.ts': "import { FixtureError } from '../index.js';\nexport const made = new FixtureError();\n",
  'src/util/packages.ts': [
    "import fc from 'fast-check';",
    "import { readFileSync } from 'fs';",
    "import { Socket } from 'node:net';",
    "import pad from 'left-pad';",
    'export const all = [fc, readFileSync, Socket, pad];',
    '',
  ].join('\n'),
  'src/resp/types.ts':
    "import type { Session } from '../client/session.js';\nexport type Reply<T extends Session> = T | null;\n",
  'src/transport/socket.ts': [
    "import { Breaker } from '../breaker/breaker.js';",
    "import type { Reply } from '../resp/types.js';",
    'export class Socket<T extends Reply<never>> { gate = new Breaker(); last?: T; }',
    '',
  ].join('\n'),
  'src/breaker/breaker.ts': [
    "import { FixtureError } from '../errors.js';",
    "import type { Reply } from '../resp/types.js';",
    'export class Breaker { error = FixtureError; reply: Reply<never> = null; }',
    '',
  ].join('\n'),
  'src/client/client.ts': [
    "import { Socket } from '../transport/socket.js';",
    "import { Breaker } from '../breaker/breaker.js';",
    "import { meter } from '../metrics/meter.js';",
    "import { connect } from 'node:net';",
    'export const parts = [Socket, Breaker, meter, connect];',
    '',
  ].join('\n'),
  'src/client/session.ts': 'export interface Session { id: number }\n',
  'src/client/up.ts': "export { shard } from '../cluster/leaf.js';\n",
  'src/client/a.ts': "import { b } from './b.js';\nexport type A = number;\nexport const a = () => b();\n",
  'src/client/b.ts': "import type { A } from './a.js';\nexport const b = (): A | undefined => undefined;\n",
  'src/cluster/leaf.ts': 'export const shard = 1;\n',
  'src/cluster/a.ts':
    "export { watcher } from '../sentinel/leaf.js';\nexport type { Session } from '../client/session.js';\n",
  'src/sentinel/leaf.ts': 'export const watcher = 1;\n',
  'src/sentinel/b.ts': "export const lazy = () => import('../cluster/leaf.js');\n",
  'src/metrics/meter.ts': 'export const meter = 1;\n',
};

function writeProject(sources: Record<string, string>): string {
  const dir = scratchDir('fixture');
  // The fixture resolves `fast-check` and `@types/node` from the repository's dependencies.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fixture', type: 'module' }));
  const compilerOptions = { module: 'nodenext', types: ['node'], strict: true, skipLibCheck: true };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
  for (const [path, text] of Object.entries(sources)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('the architecture checks', () => {
  it('report upward, sideways, type-only and unlayered imports, cycles and packages', async () => {
    const { violations } = await checkLayers(writeProject(BAD_SOURCES), 'tsconfig.json');
    expect(violations).toEqual([
      'layer-breaker: src/breaker/breaker.ts -> src/resp/types.ts',
      'layer-client: src/client/up.ts -> src/cluster/leaf.ts',
      'layer-cluster: src/cluster/a.ts -> src/sentinel/leaf.ts',
      'layer-foundation: src/util/up.ts -> src/index.ts',
      'layer-resp: src/resp/types.ts -> src/client/session.ts',
      'layer-sentinel: src/sentinel/b.ts -> src/cluster/leaf.ts',
      'layer-transport: src/transport/socket.ts -> src/breaker/breaker.ts',
      'no-circular: src/client/a.ts -> src/client/b.ts -> src/client/a.ts',
      'node-protocol: src/util/packages.ts -> fs',
      'unlayered-module: src/client/client.ts -> src/metrics/meter.ts',
      'zero-runtime-dependencies: src/util/packages.ts -> fast-check',
      'zero-runtime-dependencies: src/util/packages.ts -> left-pad',
    ]);
  });

  it(`report a source file over ${MAX_LINES} lines and accept one of exactly ${MAX_LINES}`, () => {
    const dir = writeProject({
      'src/long.ts': 'export {};\n'.repeat(MAX_LINES + 1),
      'src/full.ts': 'export {};\n'.repeat(MAX_LINES),
    });
    expect(oversizedFiles(dir, MAX_LINES)).toEqual([
      `src/long.ts: ${MAX_LINES + 1} lines (at most ${MAX_LINES})`,
    ]);
  });

  it('report every kind of runtime dependency', () => {
    const manifest = {
      dependencies: { 'left-pad': '1.3.0' },
      peerDependencies: { ioredis: '*' },
      devDependencies: { vitest: '4.1.12' },
    };
    expect(runtimeDependencies(manifest)).toEqual(['dependencies: left-pad', 'peerDependencies: ioredis']);
  });
});
