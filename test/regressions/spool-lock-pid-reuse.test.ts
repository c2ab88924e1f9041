// The resilient publisher's spool lock (examples/resilient-publisher/spool-lock.ts) judged a lock
// stale only when no process had its pid. Pids are reused: a publisher restarted in a container is
// pid 1 again (its own pid, which counted as "live"), and after a reboot any live process may have
// the dead owner's pid. Either way the lock left by a SIGKILL was never taken over, and the spool
// refused to open until someone removed the file by hand. The lock now names its owner by pid and
// start time, so a reused pid is told apart from the owner.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import { SpoolLockedError } from '../../examples/resilient-publisher/spool-errors.js';
import { payload, thrown, useScratchDirs, useSpools } from '../examples/resilient-publisher-spool-kit.js';

const scratch = useScratchDirs();
const openSpool = useSpools();
const open = (directory: string) => openSpool({ directory });
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const lockFile = (directory: string) => path.join(directory, 'spool.lock');

/** A live process that is not a spool owner: it waits for its stdin to close. */
async function liveStranger(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'process.stdin.resume()'], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child.pid!;
}

describe('a spool lock whose pid was reused', () => {
  it('is taken over when the pid is now our own (a restarted container is pid 1 again)', () => {
    const directory = scratch();
    // What an earlier incarnation with our pid left when it was killed: an event and its lock,
    // which names our pid and the start time of that other process.
    const earlier = Spool.open({ directory, fsync: 'never' });
    earlier.append(payload(0));
    earlier.close();
    fs.writeFileSync(lockFile(directory), `${process.pid} 1\n`);
    const spool = open(directory);
    expect(spool.records).toBe(1);
  });

  it('is taken over when another live process now has the dead owner pid', async () => {
    const directory = scratch();
    const pid = await liveStranger();
    // The format of a lock written by a process with that pid that started at another time.
    fs.writeFileSync(lockFile(directory), `${pid} 1\n`);
    const spool = open(directory);
    spool.append(payload(0));
    expect(fs.readFileSync(lockFile(directory), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
  });

  it('still refuses a second spool on one directory in this very process', () => {
    const directory = scratch();
    open(directory);
    expect(thrown(() => open(directory))).toBeInstanceOf(SpoolLockedError);
  });
});
