// A flipped bit in the last record of a spool segment (examples/resilient-publisher/): at open the
// record is cut off as a "corrupt" tail, since no good record follows it. That lost an event the
// spool had acknowledged (under `fsync: 'always'` a record that was fully written and synced cannot
// fail its checksum through a crash: only damage does that), but it was logged as a routine
// `spool-tail-cut` warning and not counted in `stats.corrupt`, although the README's durability
// table says damaged records are "counted and logged". The same flip one record earlier was
// counted. A torn tail (the file ends inside a record: an append cut short by a crash, never
// acknowledged under `always`) is still not corruption.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../examples/resilient-publisher/monitor.js';
import { ResilientPublisher } from '../../examples/resilient-publisher/publisher.js';
import { encodeEvent, RECORD_HEADER_BYTES } from '../../examples/resilient-publisher/record-codec.js';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import { useTestClients } from '../client/support.js';
import { segmentFiles, useScratchDirs } from '../examples/resilient-publisher-spool-kit.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const { open } = useTestClients(useRedisServer());
const scratch = useScratchDirs();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A spool of three events k0..k2 with `change` applied to its file; then a publisher on it. */
async function publisherAfter(stream: string, change: (bytes: Buffer) => Buffer) {
  const directory = scratch();
  const filler = Spool.open({ directory, fsync: 'always' });
  for (let i = 0; i < 3; i++) filler.append(encodeEvent(`k${i}`, 'data'));
  filler.close();
  const file = path.join(directory, segmentFiles(directory)[0]!);
  fs.writeFileSync(file, change(fs.readFileSync(file)));
  const logs: LogEntry[] = [];
  const publisher = new ResilientPublisher(await open(), {
    stream,
    spool: { directory, fsync: 'always' },
    logger: (entry) => logs.push(entry),
  });
  cleanups.push(() => publisher.close());
  await publisher.drained();
  return { publisher, logs };
}

const RECORD = RECORD_HEADER_BYTES + encodeEvent('k0', 'data').length;

describe('damage in the last record of a segment', () => {
  it('is counted in stats.corrupt and logged as spool-corrupt, like damage anywhere else', async () => {
    const { publisher, logs } = await publisherAfter('tail:corrupt', (bytes) => {
      bytes[2 * RECORD + RECORD_HEADER_BYTES + 3]! ^= 0x10; // in k2's payload
      return bytes;
    });
    expect(publisher.stats).toMatchObject({ replayed: 2, corrupt: 1 });
    expect(logs.find((entry) => entry.event === 'spool-corrupt')).toMatchObject({
      level: 'error',
      records: 1,
    });
  });

  it('a torn tail is not: it was never acknowledged', async () => {
    const { publisher, logs } = await publisherAfter('tail:torn', (bytes) =>
      bytes.subarray(0, 2 * RECORD + 5),
    );
    expect(publisher.stats).toMatchObject({ replayed: 2, corrupt: 0 });
    expect(logs.map((entry) => entry.event)).toContain('spool-tail-cut');
    expect(logs.map((entry) => entry.event)).not.toContain('spool-corrupt');
  });
});
