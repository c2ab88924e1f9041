// Issue 18, defects 1 and 2 once more on a real full disk: a tiny tmpfs mounted for the test (the
// machine runs the tests as root), filled until the kernel itself cuts a write short and refuses
// it (ENOSPC), or runs out of inodes so that a new segment file cannot be created. Where mounting is
// impossible (no privilege), each test asserts why and runs the same scenario through the injected
// faults of resilient-publisher-faulty-fs.ts instead, so it still proves the fix.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeEvent, encodeEvent } from '../../examples/resilient-publisher/record-codec.js';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import type { SpoolFileSystem } from '../../examples/resilient-publisher/spool-options.js';
import { FaultyFileSystem } from './resilient-publisher-faulty-fs.js';
import { drainSpool } from './resilient-publisher-spool-kit.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

interface SmallDisk {
  /** Where the spool goes: on the tmpfs, or a scratch directory when mounting was refused. */
  readonly directory: string;
  readonly mounted: boolean;
  /** Set when not mounted: the seam that stands in for the full disk. */
  readonly faults: FaultyFileSystem | undefined;
  fileSystem(): SpoolFileSystem | undefined;
}

/** Mounts a tmpfs with `options` (e.g. `size=64k`), unmounted after the test. */
function smallDisk(options: string): SmallDisk {
  const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'respire-tmpfs-'));
  cleanups.push(() => fs.rmSync(mountPoint, { recursive: true, force: true }));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    // Only a missing privilege may send the test to the fallback; anything else is a failure.
    expect(String((error as { stderr?: Buffer }).stderr ?? error)).toMatch(
      /permission|not permitted|only root/i,
    );
    const faults = new FaultyFileSystem();
    return { directory: path.join(mountPoint, 'spool'), mounted: false, faults, fileSystem: () => faults };
  }
  cleanups.push(() => execFileSync('umount', [mountPoint]));
  return {
    directory: path.join(mountPoint, 'spool'),
    mounted: true,
    faults: undefined,
    fileSystem: () => undefined,
  };
}

const event = (index: number) => encodeEvent(`key-${index}`, `event ${index} `.padEnd(90, '.'));
const errno = (error: unknown) => (error as NodeJS.ErrnoException).code;

const readAll = (spool: Spool) => drainSpool(spool).map((payload) => decodeEvent(payload).key);

/** Appends from `index` until three appends in a row were refused with ENOSPC; the next index. */
function appendUntilRefused(spool: Spool, index: number, acked: string[]): number {
  for (let refused = 0; refused < 3 && index < 10_000; index++) {
    try {
      spool.append(event(index));
      acked.push(`key-${index}`);
      refused = 0;
    } catch (error) {
      expect(errno(error)).toBe('ENOSPC');
      refused++;
    }
  }
  expect(index).toBeLessThan(10_000); // the disk did fill up
  return index;
}

describe('a real full disk', () => {
  it('defect 1: after the kernel cuts a write short, later acknowledged events all survive', () => {
    const disk = smallDisk('size=32k,mode=700');
    const spool = Spool.open({ directory: disk.directory, fsync: 'always', fileSystem: disk.fileSystem() });
    cleanups.push(() => spool.close());
    // The spool's own files go on a disk 32 KiB large; a filler holds 8 KiB to free later.
    const filler = path.join(disk.directory, 'filler');
    fs.writeFileSync(filler, Buffer.alloc(8192, 1));
    disk.faults?.fail({ call: 'write', code: 'ENOSPC', shortBytes: 50, times: Number.POSITIVE_INFINITY });
    const acked: string[] = [];
    let index = appendUntilRefused(spool, 0, acked);
    if (disk.mounted) expect(acked.length).toBeGreaterThan(100); // the disk really filled up
    fs.unlinkSync(filler);
    disk.faults?.heal();
    for (const end = index + 50; index < end; index++) {
      spool.append(event(index));
      acked.push(`key-${index}`);
    }
    spool.close();
    const restarted = Spool.open({ directory: disk.directory, fsync: 'always' });
    cleanups.push(() => restarted.close());
    expect(restarted.recovery.cuts).toEqual([]);
    expect(readAll(restarted)).toEqual(acked);
  });

  it('defect 2: with no inode left for a new segment, rotation fails cleanly and works once one is free', () => {
    const disk = smallDisk('size=1m,nr_inodes=8,mode=700');
    const segmentBytes = 1024;
    const spool = Spool.open({
      directory: disk.directory,
      fsync: 'always',
      segmentBytes,
      fileSystem: disk.fileSystem(),
    });
    cleanups.push(() => spool.close());
    spool.append(event(0)); // the first segment exists now
    // Use up every inode left, keeping the names to free one later.
    const fillers: string[] = [];
    if (disk.mounted) {
      for (let i = 0; i < 100; i++) {
        const file = path.join(disk.directory, `filler-${i}`);
        try {
          fs.writeFileSync(file, '');
        } catch (error) {
          expect(errno(error)).toBe('ENOSPC');
          break;
        }
        fillers.push(file);
      }
      expect(fillers.length).toBeLessThan(100);
    } else {
      disk.faults?.fail({ call: 'open', code: 'ENOSPC', path: /segment-/, times: Number.POSITIVE_INFINITY });
    }
    const acked = ['key-0'];
    let index = appendUntilRefused(spool, 1, acked);
    expect(acked.length).toBe(Math.floor(segmentBytes / (8 + event(0).length)));
    for (const file of fillers) fs.unlinkSync(file);
    disk.faults?.heal();
    for (const end = index + 30; index < end; index++) {
      spool.append(event(index));
      acked.push(`key-${index}`);
    }
    expect(spool.segmentCount).toBeGreaterThan(2);
    expect(readAll(spool)).toEqual(acked);
  });
});
