// Measures what each fsync policy costs: events appended to the spool per second, the work a
// `publish` does while the spool is in use (encode the event, append it, apply the policy). Run:
//   npx tsc -p tsconfig.bench.json && node build/examples/resilient-publisher/measure-spool.js
// Flags: --dir (where the scratch spools go; default the OS temp dir), --seconds per policy
// (default 3), --bytes of event data (default 200). Prints one JSON line per policy.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { encodeEvent } from './record-codec.js';
import { Spool } from './spool.js';
import type { FsyncPolicy } from './spool-options.js';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string', default: os.tmpdir() },
    seconds: { type: 'string', default: '3' },
    bytes: { type: 'string', default: '200' },
  },
});
const seconds = Number(args.seconds);
const data = Buffer.alloc(Number(args.bytes), 'x');

for (const fsync of ['always', 'interval', 'never'] as FsyncPolicy[]) {
  const directory = fs.mkdtempSync(path.join(args.dir, 'respire-spool-measure-'));
  const spool = Spool.open({ directory, fsync, maxBytes: 2 ** 40 });
  try {
    let events = 0;
    const started = performance.now();
    const until = started + seconds * 1000;
    // Checking the clock every 64 appends keeps its cost out of the number.
    while (performance.now() < until) {
      for (let i = 0; i < 64; i++) spool.append(encodeEvent(`measure-${events++}`, data));
    }
    const elapsedMs = performance.now() - started;
    const perSecond = Math.round((events / elapsedMs) * 1000);
    console.log(
      JSON.stringify({ fsync, eventBytes: data.length, events, elapsedMs: Math.round(elapsedMs), perSecond }),
    );
  } finally {
    spool.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
