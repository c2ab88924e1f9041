// Issue 18, defect 6: one process per spool directory, enforced. Before the fix two spools on one
// directory (a `--drain` run next to a live publisher) both appended, replayed and deleted segments,
// and acknowledged events were lost. Now the first takes a lock file and the second gets a clear
// error; a lock left by a process that died (SIGKILL) is taken over. Two processes: the crash test.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import { SpoolLockedError } from '../../examples/resilient-publisher/spool-errors.js';
import { payload, thrown, useScratchDirs } from './resilient-publisher-spool-kit.js';

const scratch = useScratchDirs();
const spools: Spool[] = [];
afterEach(() => {
  for (const spool of spools.splice(0)) spool.close();
});

function open(directory: string): Spool {
  const spool = Spool.open({ directory, fsync: 'never' });
  spools.push(spool);
  return spool;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('the spool lock (defect 6)', () => {
  it('a second spool on the same directory is refused, naming the holder, and touches nothing', () => {
    const directory = scratch();
    const first = open(directory);
    first.append(payload(0));
    const error = thrown(() => open(directory));
    expect(error).toBeInstanceOf(SpoolLockedError);
    expect((error as Error).message).toMatch(
      new RegExp(`spool directory .* is in use by process ${process.pid}`),
    );
    expect(first.records).toBe(1);
    first.append(payload(1));
    first.close();
    expect(open(directory).records).toBe(2); // closing released the lock
  });

  it('takes over a lock left by a process that died', async () => {
    const directory = scratch();
    const pid = await deadPid();
    fs.writeFileSync(path.join(directory, 'spool.lock'), `${pid}\n`);
    const spool = open(directory);
    spool.append(payload(0));
    expect(fs.readFileSync(path.join(directory, 'spool.lock'), 'utf8')).toMatch(
      new RegExp(`^${process.pid}[ \n]`),
    );
  });
});
