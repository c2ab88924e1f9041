// Helpers for the spool tests: scratch directories and spools cleaned up after each test, a file system that
// counts fsyncs per file, and ways to list, read and damage segment files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import type { SpoolFileSystem, SpoolOptions } from '../../examples/resilient-publisher/spool-options.js';

export function useScratchDirs(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respire-spool-'));
    dirs.push(dir);
    return dir;
  };
}

/** `Spool.open` with `fsync: 'never'` unless told; each spool is closed after its test. */
export function useSpools(): (options: Partial<SpoolOptions> & { directory: string }) => Spool {
  const spools: Spool[] = [];
  afterEach(() => {
    for (const spool of spools.splice(0)) spool.close();
  });
  return (options) => {
    const spool = Spool.open({ fsync: 'never', ...options });
    spools.push(spool);
    return spool;
  };
}

/** Segment file names in `dir`, oldest first. */
export function segmentFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.log'))
    .sort();
}

export function lastSegment(dir: string): string {
  const files = segmentFiles(dir);
  if (files.length === 0) throw new Error(`no segment in ${dir}`);
  return path.join(dir, files[files.length - 1]!);
}

export function totalSegmentBytes(dir: string): number {
  return segmentFiles(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
}

/** `node:fs` with every fsync recorded by what was synced: a segment file or the directory. */
export function countingFileSystem(): { fileSystem: SpoolFileSystem; syncs: string[] } {
  const syncs: string[] = [];
  const paths = new Map<number, string>();
  const fileSystem: SpoolFileSystem = {
    ...fs,
    openSync(file, flags) {
      const fd = fs.openSync(file, flags);
      paths.set(fd, file);
      return fd;
    },
    fsyncSync(fd) {
      const file = paths.get(fd) ?? '?';
      syncs.push(file.endsWith('.log') ? 'segment' : 'directory');
      fs.fsyncSync(fd);
    },
  };
  return { fileSystem, syncs };
}

export function payload(index: number, size = 20): Buffer {
  const text = `event-${index}-`;
  return Buffer.from(text.padEnd(size, '.'));
}

/** Peeks and consumes everything: the payloads, oldest first. */
export function drainSpool(spool: Spool): Buffer[] {
  const out: Buffer[] = [];
  for (let batch = spool.peek(1000, 1 << 20); batch.payloads.length > 0; batch = spool.peek(1000, 1 << 20)) {
    out.push(...batch.payloads);
    spool.consume(batch.position);
  }
  return out;
}

/** What `run` throws (undefined when it returns). */
export function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
