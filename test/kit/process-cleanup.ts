// Runs the kit's synchronous cleanups (kill servers, remove temp dirs) once when the process exits
// or receives SIGINT/SIGTERM/SIGHUP (vitest ends its workers with SIGTERM), whichever comes first.

const cleanups: (() => void)[] = [];
let installed = false;
let ran = false;

/** Register a synchronous cleanup; cleanups run in reverse order of registration. */
export function onProcessExit(cleanup: () => void): void {
  cleanups.push(cleanup);
  install();
}

/** Run every registered cleanup now (each at most once per process). */
function runProcessCleanups(): void {
  if (ran) return;
  ran = true;
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch {
      // Keep going: one failed removal must not leave servers running.
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once('exit', runProcessCleanups);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      runProcessCleanups();
      process.removeListener(signal, onSignal);
      // Keep the default behaviour (die by that signal) unless someone else handles it.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
