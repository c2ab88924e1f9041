// Whether a process the kit started still exists, for tests that check a kill or a stop, and for
// clusters one test file hands on to the next (cluster-pool.ts), whose processes outlive the file's
// worker and, once it has exited, are nobody's children: a container's init may never reap them.
import { readFileSync } from 'node:fs';

/** True while `pid` names a live process: it exists (signal 0 sends nothing) and is no zombie. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !isZombie(pid);
}

/** `Z` (exited, never reaped) in /proc/<pid>/stat; false where /proc is missing. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state …`: comm may hold spaces and parentheses, the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
