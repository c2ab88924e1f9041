// Where a failed write meets a failed cut in the resilient publisher's spool
// (examples/resilient-publisher/spool.ts): the write runs into a full disk and the truncate that
// should remove its stray bytes fails too (EIO), so the segment is sealed with them in it.
// - Under `fsync: 'interval'` the sealing reset the count of records awaiting their fsync without
//   syncing them: records acknowledged before the failed write were never fsynced and nothing was
//   reported, although the README promises at most `fsyncIntervalMs` of loss or a logged failure.
// - The stray bytes stayed on disk uncounted, so the files could outgrow `maxBytes` (once per
//   failed cut), although the README says the bound covers all segment files together.
// Faults are injected through the spool's file-system seam (resilient-publisher-faulty-fs.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RECORD_HEADER_BYTES } from '../../examples/resilient-publisher/record-codec.js';
import type { SpoolFault } from '../../examples/resilient-publisher/spool.js';
import { SpoolFullError } from '../../examples/resilient-publisher/spool-errors.js';
import { FaultyFileSystem } from '../examples/resilient-publisher-faulty-fs.js';
import {
  drainSpool,
  payload,
  segmentFiles,
  thrown,
  totalSegmentBytes,
  useScratchDirs,
  useSpools,
} from '../examples/resilient-publisher-spool-kit.js';

const scratch = useScratchDirs();
const open = useSpools();
afterEach(() => {
  vi.useRealTimers();
});

const RECORD = RECORD_HEADER_BYTES + 20;

/** The next append writes 11 bytes, then hits ENOSPC, and cutting them off fails with EIO. */
function failWriteAndCut(fileSystem: FaultyFileSystem): void {
  fileSystem.fail({ call: 'write', code: 'ENOSPC', shortBytes: 11 }).fail({ call: 'ftruncate', code: 'EIO' });
}

describe('a write that fails and cannot be cut off', () => {
  it('under interval, still gets the records before it fsynced (or reports that it could not)', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const fileSystem = new FaultyFileSystem();
    const directory = scratch();
    const spool = open({ directory, fileSystem, fsync: 'interval', fsyncIntervalMs: 10 });
    const faults: SpoolFault[] = [];
    spool.onFault = (fault) => faults.push(fault);
    for (let i = 0; i < 3; i++) spool.append(payload(i)); // acknowledged, fsync due within 10 ms
    failWriteAndCut(fileSystem);
    expect(thrown(() => spool.append(payload(3)))).toMatchObject({ code: 'ENOSPC' });
    vi.advanceTimersByTime(10);
    const first = `${directory}/${segmentFiles(directory)[0]}`;
    expect(fileSystem.syncedPaths).toContain(first);
    expect(faults).toEqual([]);
    // The spool goes on in a new segment; everything acknowledged is there, in order.
    spool.append(payload(4));
    expect(drainSpool(spool).map(String)).toEqual([0, 1, 2, 4].map((i) => payload(i).toString()));
  });

  it('counts the stray bytes against maxBytes until their file is deleted', () => {
    const fileSystem = new FaultyFileSystem();
    const directory = scratch();
    const spool = open({ directory, fileSystem, segmentBytes: 4 * RECORD, maxBytes: 8 * RECORD });
    for (let i = 0; i < 3; i++) spool.append(payload(i));
    failWriteAndCut(fileSystem);
    expect(thrown(() => spool.append(payload(3)))).toMatchObject({ code: 'ENOSPC' });
    expect(spool.bytes).toBe(totalSegmentBytes(directory)); // the 11 stray bytes included
    let refused: unknown;
    for (let i = 4; refused === undefined; i++) refused = thrown(() => spool.append(payload(i)));
    expect(refused).toBeInstanceOf(SpoolFullError);
    expect(totalSegmentBytes(directory)).toBeLessThanOrEqual(8 * RECORD);
    expect(spool.bytes).toBe(totalSegmentBytes(directory));
    drainSpool(spool);
    expect(spool.bytes).toBe(0);
    expect(segmentFiles(directory)).toEqual([]);
  });
});
