// A file system for the spool tests that injects disk faults deterministically: `node:fs` underneath,
// with one-shot or lasting faults on chosen calls (ENOSPC on a write after a short write, EIO on
// fsync, a failing unlink, no inode left for a new file), and a record of every call made.
import fs from 'node:fs';
import type { SpoolFileSystem } from '../../examples/resilient-publisher/spool-options.js';

export type FsCall =
  | 'open'
  | 'close'
  | 'write'
  | 'read'
  | 'fsync'
  | 'ftruncate'
  | 'unlink'
  | 'link'
  | 'mkdir';

export interface Fault {
  readonly call: FsCall;
  /** The errno code the call throws (`ENOSPC`, `EIO`, …). */
  readonly code: string;
  /** Only calls on a path matching this (fd calls: the path the fd was opened on). */
  readonly path?: RegExp;
  /** For `write`: the matching call first writes this many bytes for real and returns that short
   * count, as a write running into a full disk does; the next write call throws. */
  readonly shortBytes?: number;
  /** How many matching calls fail. Default 1; `Infinity` until `heal()`. */
  readonly times?: number;
}

interface Armed {
  fault: Fault;
  left: number;
  shortLeft: number;
}

export function fsError(code: string, call: string, path = ''): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: injected fault, ${call} '${path}'`);
  error.code = code;
  error.syscall = call;
  return error;
}

export class FaultyFileSystem implements SpoolFileSystem {
  /** Every call, as `<call> <basename>`. */
  readonly calls: string[] = [];
  private armed: Armed[] = [];
  private readonly paths = new Map<number, string>();

  /** Arms a fault; returns `this` for chaining. */
  fail(fault: Fault): this {
    this.armed.push({ fault, left: fault.times ?? 1, shortLeft: fault.shortBytes ?? 0 });
    return this;
  }

  /** Disarms every fault: the disk has room again, the sector was remapped. */
  heal(): void {
    this.armed = [];
  }

  /** Paths of every fsync, in order (a directory or a segment file). */
  get syncedPaths(): string[] {
    return this.calls.filter((call) => call.startsWith('fsync ')).map((call) => call.slice(6));
  }

  mkdirSync(path: string, options: { recursive: true }): string | undefined {
    this.check('mkdir', path);
    return fs.mkdirSync(path, options);
  }
  readdirSync(path: string): string[] {
    return fs.readdirSync(path);
  }
  readFileSync(path: string): Buffer {
    return fs.readFileSync(path);
  }
  openSync(path: string, flags: string): number {
    this.check('open', path);
    const fd = fs.openSync(path, flags);
    this.paths.set(fd, path);
    return fd;
  }
  closeSync(fd: number): void {
    this.check('close', this.paths.get(fd));
    this.paths.delete(fd);
    fs.closeSync(fd);
  }
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
    const armed = this.match('write', this.paths.get(fd));
    if (armed !== undefined && armed.shortLeft > 0) {
      const short = Math.min(armed.shortLeft, length);
      armed.shortLeft = 0;
      return fs.writeSync(fd, buffer, offset, short, position);
    }
    if (armed !== undefined) this.trip(armed, 'write', this.paths.get(fd));
    return fs.writeSync(fd, buffer, offset, length, position);
  }
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
    this.check('read', this.paths.get(fd));
    return fs.readSync(fd, buffer, offset, length, position);
  }
  fsyncSync(fd: number): void {
    this.check('fsync', this.paths.get(fd));
    fs.fsyncSync(fd);
  }
  ftruncateSync(fd: number, length: number): void {
    this.check('ftruncate', this.paths.get(fd));
    fs.ftruncateSync(fd, length);
  }
  unlinkSync(path: string): void {
    this.check('unlink', path);
    fs.unlinkSync(path);
  }
  linkSync(existingPath: string, newPath: string): void {
    this.check('link', newPath);
    fs.linkSync(existingPath, newPath);
  }

  private check(call: FsCall, path: string | undefined): void {
    const armed = this.match(call, path);
    if (armed !== undefined) this.trip(armed, call, path);
  }

  private match(call: FsCall, path = '?'): Armed | undefined {
    this.calls.push(`${call} ${path}`);
    return this.armed.find(
      (armed) => armed.fault.call === call && armed.left > 0 && (armed.fault.path?.test(path) ?? true),
    );
  }

  private trip(armed: Armed, call: FsCall, path = '?'): never {
    armed.left--;
    throw fsError(armed.fault.code, call, path);
  }
}
