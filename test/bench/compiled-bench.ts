// Compiles src, bench and test/kit the way `npm run bench` does, into a throwaway directory in
// build/ (so packages still resolve from the repository's node_modules), and runs the compiled
// runner as its own process: isolated suites fork compiled workers, which vitest cannot provide.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');

export interface CompiledBench {
  /** The output directory; `bench/`, `src/` and `test/kit/` below it. */
  dir: string;
  /** Path of a compiled module, e.g. `bench/run.js`. */
  file(relative: string): string;
  remove(): Promise<void>;
}

export async function compileBench(): Promise<CompiledBench> {
  await mkdir(path.join(ROOT, 'build'), { recursive: true });
  const dir = await mkdtemp(path.join(ROOT, 'build', 'test-bench-'));
  // --noCheck: type errors are `npm run typecheck`'s business; this only needs the JavaScript.
  await run(process.execPath, [TSC, '-p', 'tsconfig.bench.json', '--outDir', dir, '--noCheck'], {
    cwd: ROOT,
  });
  return {
    dir,
    file: (relative) => path.join(dir, relative),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface RunOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled `bench/run.js` with `args`; never rejects on a non-zero exit. */
export async function runCompiledBench(
  bench: CompiledBench,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<RunOutcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bench.file('bench/run.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: '', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
