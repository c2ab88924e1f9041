// One process per spool directory (issue 18, defect 6): two spools on one directory both replay and
// delete segments, and a `--drain` run next to a live publisher deleted a segment the publisher was
// still appending to. The lock is a file `spool.lock` holding the owner's pid, put in place with
// link(2), which fails when the name exists, so it is never seen half written. A lock whose owner
// has died (SIGKILL leaves it behind) is taken over; a live owner makes `Spool.open` throw.
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
        if (round > 0 || isAlive(holder)) throw new SpoolLockedError(directory, holder);
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
    const text = Buffer.from(`${process.pid}\n`);
    for (let written = 0; written < text.length; ) {
      written += fs.writeSync(fd, text, written, text.length - written, written);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The pid in the lock file; 0 when it is unreadable (no live process has pid 0). */
function lockHolder(fs: SpoolFileSystem, lock: string): number {
  try {
    const pid = Number.parseInt(fs.readFileSync(lock).toString('utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : 0;
  } catch {
    return 0;
  }
}

/** Whether `pid` is a live process: signal 0 checks without sending anything. Our own pid is live. */
function isAlive(pid: number): boolean {
  if (pid === 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by another user
  }
}

function removeIfPresent(fs: SpoolFileSystem, file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
