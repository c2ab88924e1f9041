// Where the time of large string replies goes (issue 17 "Large values"): the cost of turning 100
// payloads of `--bytes` (default 100 KiB) from a read buffer into what a GET resolves with, per
// pass, with the pass's replies dropped at once or kept until the next pass has its own (as
// `const values = await Promise.all(gets)` in a loop keeps them). No socket, no server: only the
// decoding step and the garbage collections it causes, which `npm run bench -- --only client`
// mixes with everything else. `node build/bench/large-string-gc.js [--bytes N]` after
// `npx tsc -p tsconfig.bench.json`. Ways compared:
// - `copy`: one `latin1Slice` per payload, a string in V8's young generation (what Respire's
//   decoder, ioredis and node-redis do below 1 MiB). The young generation copies a live one on
//   each scavenge it survives, then promotes it; this is the cost that `replies kept` shows.
// - `shared`: one `latin1Slice` over a run of payloads of at least 1,031,913 bytes, which Node
//   makes an external string (its EXTERN_APEX: the bytes live outside the V8 heap), and each reply
//   a slice of it (a SlicedString: no copy). Scavenges then move small headers only, but a reply
//   kept alone pins the whole run: the reason Respire does not do this.
// - `buffers`: views of the read buffer (`returnBuffers`): no copy and no string.
// `node --trace-gc` beside it shows the mechanism: the scavenges that promote a pass's strings
// grow the old generation by a semi-space of fresh pages, and on a loaded 2-core VM faulting
// those pages in dominates (100-160 ms per 16 MiB here), so figures here exaggerate it.
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

/** Node's threshold for an external one-byte string (src/string_bytes.cc, EXTERN_APEX). */
const EXTERN_APEX = 0xfbee9;
const REPLIES = 100;
/** Bytes between payloads, as a RESP header and CRLF take. */
const GAP = 12;

type Way = 'copy' | 'shared' | 'buffers';

function decodePass(way: Way, input: Buffer, bytes: number): unknown[] {
  const out: unknown[] = new Array(REPLIES);
  const stride = bytes + GAP;
  if (way === 'buffers') {
    for (let i = 0; i < REPLIES; i++) out[i] = input.subarray(i * stride, i * stride + bytes);
    return out;
  }
  if (way === 'copy') {
    for (let i = 0; i < REPLIES; i++) out[i] = input.toString('latin1', i * stride, i * stride + bytes);
    return out;
  }
  const perRun = Math.ceil(EXTERN_APEX / stride);
  for (let first = 0; first < REPLIES; first += perRun) {
    const count = Math.min(perRun, REPLIES - first);
    const from = first * stride;
    const run = input.toString('latin1', from, from + count * stride);
    for (let i = 0; i < count; i++) out[first + i] = run.slice(i * stride, i * stride + bytes);
  }
  return out;
}

async function measure(way: Way, keep: boolean, bytes: number, durationMs: number): Promise<string> {
  const input = Buffer.alloc(REPLIES * (bytes + GAP), 'v');
  let kept: unknown[] = [];
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceEntry[]) gcMs += entry.duration;
  });
  for (let i = 0; i < 20; i++) kept = decodePass(way, input, bytes);
  observer.observe({ entryTypes: ['gc'] });
  const cpu = process.cpuUsage();
  const started = performance.now();
  let passes = 0;
  while (performance.now() - started < durationMs) {
    const replies = decodePass(way, input, bytes);
    kept = keep ? replies : [];
    passes++;
  }
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  // Collections reach the observer from a platform task after the loop turns, not at once.
  await delay(100);
  observer.disconnect();
  if (kept.length > 0 && (kept[0] as { length: number }).length !== bytes) throw new Error('bad reply');
  const replies = passes * REPLIES;
  const cpuUs = (used.user + used.system) / replies;
  return `${way.padEnd(8)} ${keep ? 'kept a pass' : 'dropped    '}  ${((elapsedMs * 1000) / replies).toFixed(1).padStart(7)} µs/reply wall  ${cpuUs.toFixed(1).padStart(7)} µs/reply CPU  GC ${((100 * gcMs) / elapsedMs).toFixed(0).padStart(3)}% of wall`;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--bytes');
  const bytes = at === -1 ? 100 * 1024 : Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new Error('--bytes needs a positive integer');
  console.log(`${REPLIES} replies of ${bytes} bytes a pass, node ${process.version}`);
  // Each way alternately, twice: a loaded machine drifts, so compare within a line pair only.
  for (let round = 0; round < 2; round++) {
    for (const keep of [false, true]) {
      for (const way of ['copy', 'shared', 'buffers'] as const)
        console.log(await measure(way, keep, bytes, 1500));
    }
  }
}

await main();
