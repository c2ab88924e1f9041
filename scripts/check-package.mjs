// Packaging check: builds, packs the tarball `npm publish` would upload, lints it with
// `publint --strict`, then installs it into a scratch consumer and loads every entry point of
// API.md's table the way users will: ESM `import()`, CommonJS `require()`, and TypeScript: nodenext
// from both an `.mts` and a `.cts` file, and bundler resolution. Exits non-zero with a list of every failure.
//
// Usage: node scripts/check-package.mjs [--skip-build]   (--skip-build when `npm run build` just ran)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');

/** Names each entry point must export as values (API.md "import | exports"). */
const ENTRY_POINTS = {
  respire: [
    'RespireError',
    'RespireConnectionError',
    'RespireAuthenticationError',
    'RespireProtocolError',
    'RespireTimeoutError',
    'RespireServerError',
    'RespireCircuitOpenError',
    'RespireConfigurationError',
  ],
  'respire/resp': ['RespDecoder', 'encodeCommand', 'RespireProtocolError', 'RespireServerError'],
  'respire/breaker': ['CircuitBreaker', 'SharedCircuitRegistry'],
  'respire/breaker/testing': ['breakerModel', 'breakerCommands', 'fakeClock'],
  'respire/cluster': ['keySlot'],
};

/** Files the published package must hold besides the `exports` targets publint checks. */
const REQUIRED_FILES = ['package.json', 'dist/cjs/package.json'];

const failures = [];

function section(title) {
  console.log(`\n==> ${title}`);
}

function fail(message) {
  failures.push(message);
  console.log(`FAIL ${message}`);
}

/** Runs a command with inherited output; returns whether it succeeded. */
function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.error !== undefined) throw result.error;
  return result.status === 0;
}

// The probe each module system runs inside the consumer. `load` is `import()` or `require()`;
// `where` says which file an entry point resolved to, so a CJS consumer that silently got the ESM
// build (or the reverse) is caught. It prints one JSON object: the problems it found.
const PROBE_BODY = `
const entryPoints = ${JSON.stringify(ENTRY_POINTS)};
const expectedBuild = process.argv[2];
const problems = [];
const loaded = {};
for (const [name, exportNames] of Object.entries(entryPoints)) {
  try {
    const file = where(name);
    if (!file.includes('/dist/' + expectedBuild + '/')) problems.push(name + ' resolved to ' + file);
    loaded[name] = await load(name);
  } catch (error) {
    problems.push(name + ' failed to load: ' + String(error && error.message).split('\\n')[0]);
    continue;
  }
  for (const exportName of exportNames) {
    if (typeof loaded[name][exportName] !== 'function') problems.push(name + ' lacks ' + exportName);
  }
}
const main = loaded.respire;
const resp = loaded['respire/resp'];
if (main && resp) {
  // One class per error across entry points, or instanceof fails for users.
  for (const shared of ['RespireProtocolError', 'RespireServerError']) {
    if (resp[shared] !== main[shared]) problems.push('respire/resp re-exports a copy of ' + shared);
  }
  try {
    const bytes = Buffer.from(resp.encodeCommand(['PING']));
    if (bytes.toString('latin1') !== '*1\\r\\n$4\\r\\nPING\\r\\n') problems.push('encodeCommand([PING]) gave ' + JSON.stringify(bytes.toString('latin1')));
  } catch (error) {
    problems.push('encodeCommand threw: ' + (error && error.message));
  }
}
const cluster = loaded['respire/cluster'];
if (cluster) {
  // CRC16/XMODEM's check value (PROTOCOL.md 2.1): the built code computes slots, not just loads.
  try {
    const slot = cluster.keySlot('123456789');
    if (slot !== 0x31c3) problems.push('keySlot("123456789") gave ' + slot);
  } catch (error) {
    problems.push('keySlot threw: ' + (error && error.message));
  }
}
console.log(JSON.stringify(problems));
`;

const ESM_PROBE = `const load = (name) => import(name);
const where = (name) => import.meta.resolve(name);
${PROBE_BODY}`;

const CJS_PROBE = `const load = (name) => require(name);
const where = (name) => require.resolve(name);
(async () => {
${PROBE_BODY}
})();`;

// Namespace imports, so a name exported only as a type (or not at all) is a compile error.
function typesProbe() {
  const lines = Object.entries(ENTRY_POINTS).flatMap(([name, exportNames], index) => [
    `import * as entry${index} from '${name}';`,
    `export const used${index} = [${exportNames.map((exportName) => `entry${index}.${exportName}`).join(', ')}];`,
  ]);
  const resp = Object.keys(ENTRY_POINTS).indexOf('respire/resp');
  return `${lines.join('\n')}\nexport const bytes: Uint8Array = entry${resp}.encodeCommand(['PING']);\n`;
}

function runProbe(consumer, file, build) {
  const result = spawnSync(process.execPath, [file, build], { cwd: consumer, encoding: 'utf8' });
  const lastLine = result.stdout.trim().split('\n').at(-1) ?? '';
  let problems;
  try {
    problems = JSON.parse(lastLine);
  } catch {
    problems = [`probe crashed (exit ${result.status}): ${result.stderr.trim() || result.stdout.trim()}`];
  }
  for (const problem of problems) fail(`${build}: ${problem}`);
  if (problems.length === 0) console.log(`ok: ${Object.keys(ENTRY_POINTS).join(', ')} load as ${build}`);
}

const scratch = mkdtempSync(join(tmpdir(), 'respire-package-'));
try {
  if (!process.argv.includes('--skip-build')) {
    section('build');
    if (!run('npm', ['run', 'build'], ROOT)) throw new Error('npm run build failed');
  }

  section('npm pack');
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: ROOT, encoding: 'utf8' }),
  )[0];
  const tarball = join(scratch, packed.filename);
  const packedFiles = new Set(packed.files.map((file) => file.path));
  console.log(`${packed.filename}: ${packed.files.length} files, ${packed.size} bytes packed`);
  for (const file of REQUIRED_FILES) if (!packedFiles.has(file)) fail(`tarball lacks ${file}`);
  for (const file of packedFiles) {
    // src/ ships so that the source maps in dist/ resolve; nothing else outside dist/.
    if (!/^(dist\/|src\/.*\.(ts|md)$|package\.json$|README\.md$|LICENSE)/.test(file))
      fail(`tarball ships ${file}`);
  }

  section('publint --strict');
  if (!run(join(BIN, 'publint'), ['run', tarball, '--strict'], ROOT))
    fail('publint --strict reported problems');

  section('install into a scratch consumer');
  const consumer = join(scratch, 'consumer');
  mkdirSync(join(consumer, 'node_modules'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', join(consumer, 'node_modules')]);
  renameSync(join(consumer, 'node_modules', 'package'), join(consumer, 'node_modules', 'respire'));
  // Only for the TypeScript probe: the package's .d.ts files refer to Node's types.
  symlinkSync(join(ROOT, 'node_modules', '@types'), join(consumer, 'node_modules', '@types'), 'dir');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  writeFileSync(join(consumer, 'esm-probe.mjs'), ESM_PROBE);
  writeFileSync(join(consumer, 'cjs-probe.cjs'), CJS_PROBE);
  writeFileSync(join(consumer, 'esm-types.mts'), typesProbe());
  writeFileSync(join(consumer, 'cjs-types.cts'), typesProbe());
  const nodenext = { module: 'nodenext', strict: true, noEmit: true, types: ['node'], skipLibCheck: false };
  const bundler = { ...nodenext, module: 'esnext', moduleResolution: 'bundler' };
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: nodenext, files: ['esm-types.mts', 'cjs-types.cts'] }),
  );
  writeFileSync(
    join(consumer, 'tsconfig.bundler.json'),
    JSON.stringify({ compilerOptions: bundler, files: ['esm-types.mts'] }),
  );

  section('import() and require() every entry point');
  runProbe(consumer, 'esm-probe.mjs', 'esm');
  runProbe(consumer, 'cjs-probe.cjs', 'cjs');

  section('TypeScript resolves every entry point: nodenext from .mts and .cts, and bundler');
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const [project, label] of [
    ['tsconfig.json', 'nodenext import and require'],
    ['tsconfig.bundler.json', 'bundler'],
  ]) {
    if (run(process.execPath, [tsc, '-p', join(consumer, project)], consumer))
      console.log(`ok: types resolve for ${label}`);
    else fail(`the packed .d.ts files do not type-check for ${label} (see above)`);
  }
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

section('result');
if (failures.length > 0) {
  console.log(
    `${failures.length} packaging problem(s):\n${failures.map((failure) => `  - ${failure}`).join('\n')}`,
  );
  process.exitCode = 1;
} else {
  console.log('the package is sound');
}
