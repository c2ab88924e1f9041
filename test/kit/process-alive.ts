// Whether a process the kit started still exists, for tests that check a kill or a stop.

/** True while `pid` names a live process (signal 0 tests existence without sending anything). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
