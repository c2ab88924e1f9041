// One Redis Cluster or Sentinel group at a time on the machine, whatever the number of test
// workers: each is six or more redis-server processes whose failovers run on real timers (a 1 s
// down-after, a 2 s node timeout here), and two of them at once on two cores starve one past
// those (failovers nobody asked for, sentinels in TILT). The slot is a lock directory in the
// system's temporary folder naming its holder's pid; a holder that died without giving it back is
// replaced. Within one process the slot is shared: a file may start a cluster and a group.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isProcessAlive } from './process-alive.js';
import { onProcessExit } from './process-cleanup.js';

/** A lock directory still without its pid file after this long was left by a crash. */
const UNNAMED_GRACE_MS = 10_000;
const POLL_MS = 100;
const SAY_WAITING_AFTER_MS = 120_000;

export class TopologyGate {
  private readonly owner: string;
  private holders = 0;
  private taking: Promise<void> | undefined;

  constructor(private readonly lock: string) {
    this.owner = path.join(lock, 'pid');
  }

  /** Waits for the slot; the returned function gives it back (once; extra calls are ignored). */
  async take(): Promise<() => void> {
    if (this.holders === 0) {
      this.taking ??= this.lockWhenFree().finally(() => {
        this.taking = undefined;
      });
      await this.taking;
    }
    this.holders++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.holders--;
      if (this.holders === 0) this.unlock();
    };
  }

  private async lockWhenFree(): Promise<void> {
    // Said once, after a while: a bench started during a test run would otherwise wait in silence.
    const sayAt = Date.now() + SAY_WAITING_AFTER_MS;
    let said = false;
    for (;;) {
      try {
        mkdirSync(this.lock);
        writeFileSync(this.owner, String(process.pid));
        onProcessExit(this.unlockIfMine);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (this.holderGone()) {
        this.unlock();
        continue;
      }
      if (!said && Date.now() >= sayAt) {
        said = true;
        console.error(`waiting for another process's Redis Cluster or Sentinel group to stop (${this.lock})`);
      }
      await delay(POLL_MS);
    }
  }

  private holderGone(): boolean {
    try {
      return !isProcessAlive(Number(readFileSync(this.owner, 'utf8')));
    } catch {
      try {
        return Date.now() - statSync(this.lock).mtimeMs > UNNAMED_GRACE_MS;
      } catch {
        return false; // removed meanwhile: the next mkdir decides
      }
    }
  }

  private unlock(): void {
    rmSync(this.lock, { recursive: true, force: true });
  }

  /** At exit (a worker ended mid-file): only a lock this process holds is removed. */
  private readonly unlockIfMine = (): void => {
    try {
      if (this.holders > 0 && Number(readFileSync(this.owner, 'utf8')) === process.pid) this.unlock();
    } catch {
      // Not ours, or already gone.
    }
  };
}

const machineGate = new TopologyGate(path.join(os.tmpdir(), 'respire-test-topology.lock'));

/** The machine's slot for one Cluster or Sentinel group (see the top of this file). */
export function takeTopologySlot(): Promise<() => void> {
  return machineGate.take();
}
