// Compiles a TypeScript entry (and what it imports) with the repository's tsc into a scratch
// directory, so that a child process or a worker thread can run it as plain Node: vitest's
// transform reaches neither. TypeScript 7 takes about half a second for src/breaker and a worker.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = path.join(
  path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')),
  'bin',
  'tsc',
);

export interface CompiledEntry {
  /** The compiled entry, e.g. `<dir>/test/breaker/worker.js`. */
  readonly file: string;
  /** Removes the scratch directory. */
  remove(): void;
}

/** Compiles `entry` (a path from the repository root) with the repository's compiler options. */
export async function compileEntry(entry: string): Promise<CompiledEntry> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'respire-entry-'));
  const flags = ['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
  flags.push(
    '--lib',
    'es2022,esnext.disposable',
    '--types',
    'node',
    '--strict',
    '--skipLibCheck',
    '--noCheck',
  );
  await promisify(execFile)(
    process.execPath,
    [TSC, '--ignoreConfig', ...flags, '--rootDir', ROOT, '--outDir', outDir, path.join(ROOT, entry)],
    { cwd: ROOT },
  );
  fs.writeFileSync(path.join(outDir, 'package.json'), '{ "type": "module" }\n');
  return {
    file: path.join(outDir, entry.replace(/\.ts$/, '.js')),
    remove: () => fs.rmSync(outDir, { recursive: true, force: true }),
  };
}
