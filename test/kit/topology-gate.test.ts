import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outcomeWithin } from '../client/support.js';
import { isProcessAlive } from './process-alive.js';
import { TopologyGate } from './topology-gate.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'respire-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let next = 0;
const lockPath = () => path.join(dir, `lock-${next++}`);

/** A lock directory as another live process would leave it. */
function heldBy(lock: string, pid: number): void {
  mkdirSync(lock);
  writeFileSync(path.join(lock, 'pid'), String(pid));
}

describe('TopologyGate', () => {
  it('is shared within a process and given back when the last holder releases it', async () => {
    const lock = lockPath();
    const gate = new TopologyGate(lock);
    const first = await gate.take();
    const second = await gate.take();
    first();
    first(); // a second call is ignored
    const other = new TopologyGate(lock); // as another process sees it: held by a live pid
    const waiting = other.take();
    expect(await outcomeWithin(waiting, 300)).toBe('pending');
    second();
    const release = await waiting;
    release();
  });

  it('waits while another live process holds it, and takes it once that process is gone', async () => {
    const lock = lockPath();
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    try {
      heldBy(lock, holder.pid!);
      const waiting = new TopologyGate(lock).take();
      expect(await outcomeWithin(waiting, 300)).toBe('pending');
      holder.kill('SIGKILL');
      await exited;
      expect(isProcessAlive(holder.pid!)).toBe(false);
      const release = await waiting;
      release();
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
