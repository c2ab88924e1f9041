// The spool's options (every default and range stated), their validation, and the file-system seam
// the spool does all its I/O through.
import fs from 'node:fs';

/**
 * When appended bytes are forced to disk:
 * - `always`: `fsync` after every append, before `append` returns (survives power loss; slowest);
 * - `interval`: at most `fsyncIntervalMs` after an append (a power cut loses that much; a crash of
 *   the process alone loses nothing, since the kernel already holds the bytes);
 * - `never`: the kernel decides (a process crash still loses nothing; a power cut may lose more).
 */
export type FsyncPolicy = 'always' | 'interval' | 'never';

/**
 * What a full spool does with a new event:
 * - `reject`: `append` throws SpoolFullError and nothing is written; the caller decides;
 * - `drop-oldest`: whole oldest segments are deleted until the event fits (their unreplayed events
 *   are lost and counted); the newest events are kept.
 */
export type OverflowPolicy = 'reject' | 'drop-oldest';

/**
 * Every file operation the spool makes: `node:fs` by default. Tests put disk faults here (a short
 * write, ENOSPC, EIO from fsync, a failing unlink) and crash the spool at any one of them.
 */
export interface SpoolFileSystem {
  /** Returns the first directory it created, if any. */
  mkdirSync(path: string, options: { recursive: true }): string | undefined;
  readdirSync(path: string): string[];
  readFileSync(path: string): Buffer;
  openSync(path: string, flags: string): number;
  closeSync(fd: number): void;
  /** Writes at `position`, never at the file's own offset (which a failed write leaves behind). */
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
  unlinkSync(path: string): void;
  /** Fails with EEXIST when `newPath` exists: how the lock file is taken. */
  linkSync(existingPath: string, newPath: string): void;
}

export interface SpoolOptions {
  /** Directory of the segment files, created if missing. One process per directory (spool-lock.ts). */
  directory: string;
  /** Bound on the bytes of all segment files. Default 64 MiB; at least `2 * segmentBytes`. */
  maxBytes?: number;
  /** A segment is sealed and a new one started before it would exceed this. Default 4 MiB; 32 B to 1 GiB. */
  segmentBytes?: number;
  /** Default `interval`. */
  fsync?: FsyncPolicy;
  /** For `fsync: 'interval'`. Default 100; 1 to 60,000 ms. */
  fsyncIntervalMs?: number;
  /** Default `reject`. */
  overflow?: OverflowPolicy;
  fileSystem?: SpoolFileSystem;
}

export type ResolvedSpoolOptions = Readonly<Required<SpoolOptions>>;

const MIB = 1024 * 1024;

export function resolveSpoolOptions(options: SpoolOptions): ResolvedSpoolOptions {
  if (typeof options.directory !== 'string' || options.directory.length === 0) {
    throw new RangeError('spool option directory must be a non-empty path');
  }
  const segmentBytes = integer(options.segmentBytes, 'segmentBytes', 4 * MIB, 32, 1024 * MIB);
  const maxBytes = integer(
    options.maxBytes,
    'maxBytes',
    Math.max(64 * MIB, 2 * segmentBytes),
    2 * segmentBytes,
  );
  return {
    directory: options.directory,
    maxBytes,
    segmentBytes,
    fsync: oneOf(options.fsync, 'fsync', 'interval', ['always', 'interval', 'never'] as const),
    fsyncIntervalMs: integer(options.fsyncIntervalMs, 'fsyncIntervalMs', 100, 1, 60_000),
    overflow: oneOf(options.overflow, 'overflow', 'reject', ['reject', 'drop-oldest'] as const),
    fileSystem: options.fileSystem ?? fs,
  };
}

function integer(
  value: number | undefined,
  name: string,
  fallback: number,
  min: number,
  max = 2 ** 52,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`spool option ${name} must be an integer from ${min} through ${max}, got ${value}`);
  }
  return value;
}

function oneOf<T extends string>(value: T | undefined, name: string, fallback: T, allowed: readonly T[]): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) {
    throw new RangeError(`spool option ${name} must be one of ${allowed.join(', ')}, got ${String(value)}`);
  }
  return value;
}
