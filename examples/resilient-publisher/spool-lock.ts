// One process per spool directory (issue 18, defect 6): two spools on one directory both replay and
// delete segments, and a `--drain` run next to a live publisher deleted a segment the publisher was
// still appending to. The lock is a file `spool.lock` holding the owner's pid, put in place with
// link(2), which fails when the name exists, so it is never seen half written. A lock whose owner
// has died (SIGKILL leaves it behind) is taken over; a live owner makes `Spool.open` throw.
// Pids are reused (a restarted container is pid 1 again; after a reboot any process may have the
// dead owner's pid), so where Linux tells (/proc) the lock also names its owner's start time and
// boot, and a process with the pid but another start is not the owner (review of issue 18).
import nodeFs from 'node:fs';
import path from 'node:path';
import { SpoolLockedError } from './spool-errors.js';
import type { SpoolFileSystem } from './spool-options.js';

const LOCK_NAME = 'spool.lock';

/** Takes the lock on `directory`; returns the function that releases it. */
export function lockDirectory(fs: SpoolFileSystem, directory: string): () => void {
  const lock = path.join(directory, LOCK_NAME);
  const draft = path.join(directory, `${LOCK_NAME}.${process.pid}`);
  writeDraft(fs, draft);
  try {
    // Two rounds: the second follows the removal of a dead owner's lock.
    for (let round = 0; ; round++) {
      try {
        fs.linkSync(draft, lock);
        return () => fs.unlinkSync(lock);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = lockHolder(fs, lock);
        if (round > 0 || isAlive(holder)) throw new SpoolLockedError(directory, holder.pid);
        // A known gap: two processes that find the same dead owner's lock at the same instant may
        // both get in (one unlinks the other's fresh lock). Closing it needs flock(2), which Node
        // lacks without a native module; the window is one start-up after an unclean exit.
        removeIfPresent(fs, lock);
      }
    }
  } finally {
    removeIfPresent(fs, draft);
  }
}

function writeDraft(fs: SpoolFileSystem, draft: string): void {
  removeIfPresent(fs, draft); // left by an earlier process that had our pid
  const fd = fs.openSync(draft, 'wx');
  try {
    const start = processStart(process.pid);
    const text = Buffer.from(start === undefined ? `${process.pid}\n` : `${process.pid} ${start}\n`);
    for (let written = 0; written < text.length; ) {
      written += fs.writeSync(fd, text, written, text.length - written, written);
    }
  } finally {
    fs.closeSync(fd);
  }
}

interface LockHolder {
  /** 0 when the lock is unreadable (no live process has pid 0). */
  readonly pid: number;
  /** The owner's start (`processStart`), when its system tells. */
  readonly start: string | undefined;
}

/** Who the lock file names: `<pid>` or `<pid> <start>`. */
function lockHolder(fs: SpoolFileSystem, lock: string): LockHolder {
  try {
    const [pidText = '', start] = fs.readFileSync(lock).toString('utf8').trim().split(' ');
    const pid = Number.parseInt(pidText, 10);
    return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : 0, start };
  } catch {
    return { pid: 0, start: undefined };
  }
}

/**
 * Whether the lock's owner still runs: signal 0 checks the pid without sending anything (our own
 * pid is live); then, where both are known, the process with that pid must be the one that started
 * when the owner did.
 */
function isAlive(holder: LockHolder): boolean {
  if (holder.pid === 0) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // EPERM: another user's
  }
  const start = holder.start === undefined ? undefined : processStart(holder.pid);
  return start === undefined || start === holder.start;
}

/**
 * When process `pid` started, as `<clock ticks after boot>@<boot id>` from Linux's /proc (not the
 * spool's file system: this is about processes, not spool files); undefined where not available.
 */
function processStart(pid: number): string | undefined {
  try {
    const stat = nodeFs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 is the start time; the command name (field 2, in parentheses) may hold spaces.
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const boot = nodeFs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return ticks === undefined ? undefined : `${ticks}@${boot}`;
  } catch {
    return undefined;
  }
}

function removeIfPresent(fs: SpoolFileSystem, file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
