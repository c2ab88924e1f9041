// `overflow: 'drop-oldest'` in the resilient publisher's spool (examples/resilient-publisher/)
// deletes whole oldest segments until a new event fits. When the disk refuses to delete files
// (EIO, a file system gone read-only), a dropped segment frees nothing, since its bytes count
// until its file is gone; the loop went on dropping segment after segment, every unreplayed event
// up to the tail, and then refused the new event anyway (SpoolFullError). Dropping that frees no
// room now stops: at most the one segment whose deletion failed is lost.
import { describe, expect, it } from 'vitest';
import { RECORD_HEADER_BYTES } from '../../examples/resilient-publisher/record-codec.js';
import { SpoolFullError } from '../../examples/resilient-publisher/spool-errors.js';
import { FaultyFileSystem } from '../examples/resilient-publisher-faulty-fs.js';
import {
  drainSpool,
  payload,
  thrown,
  useScratchDirs,
  useSpools,
} from '../examples/resilient-publisher-spool-kit.js';

const scratch = useScratchDirs();
const open = useSpools();

const RECORD = RECORD_HEADER_BYTES + 20;

describe('drop-oldest when files cannot be deleted', () => {
  it('loses no more than the segment whose deletion failed', () => {
    const fileSystem = new FaultyFileSystem();
    const spool = open({
      directory: scratch(),
      overflow: 'drop-oldest',
      segmentBytes: 2 * RECORD,
      maxBytes: 8 * RECORD,
      fileSystem,
    });
    for (let i = 0; i < 8; i++) spool.append(payload(i)); // four full segments: the spool is full
    fileSystem.fail({ call: 'unlink', code: 'EIO', times: Number.POSITIVE_INFINITY });
    expect(thrown(() => spool.append(payload(8)))).toBeInstanceOf(SpoolFullError);
    expect(spool.droppedRecords).toBe(2);
    expect(spool.records).toBe(6);
    fileSystem.heal();
    expect(drainSpool(spool).map(String)).toEqual([2, 3, 4, 5, 6, 7].map((i) => payload(i).toString()));
  });
});
