// Maintenance windows and notification parsing (PROTOCOL.md §5): relaxed deadlines never lower a
// user's own, nested windows counted by seq, stale terminators ignored, a backstop expiry, and the
// same notification from many connections applied once. Fake clock: no waiting.
import { describe, expect, it } from 'vitest';
import { MaintenanceWindows } from '../../../src/transport/maintenance/maintenance-windows.js';
import { parseMaintenance } from '../../../src/transport/maintenance/notifications.js';

function windows(relaxedMs = 10_000) {
  const clock = { ms: 0, now: () => clock.ms };
  return { clock, windows: new MaintenanceWindows(relaxedMs, clock) };
}

const start = (seq: number, timeS = 5) => ({ kind: 'start', type: 'MIGRATING', seq, timeS }) as const;
const end = (seq: number) => ({ kind: 'end', type: 'MIGRATED', seq }) as const;

describe('MaintenanceWindows', () => {
  it('relaxes deadlines inside a window, never lowering a longer one or adding one where none was', () => {
    const { windows: w } = windows();
    expect(w.relax(100)).toBe(100);
    w.apply(start(1));
    expect(w.relax(100)).toBe(10_000);
    expect(w.relax(30_000)).toBe(30_000);
    expect(w.relax(0)).toBe(0);
    w.apply(end(1));
    expect(w.relax(100)).toBe(100);
  });

  it('counts nested windows and ignores a stale terminator', () => {
    const { windows: w } = windows();
    w.apply(start(1));
    w.apply({ kind: 'start', type: 'FAILING_OVER', seq: 2, timeS: 5 });
    w.apply(end(1));
    expect(w.active).toBe(true);
    w.apply({ kind: 'end', type: 'FAILED_OVER', seq: 2 });
    expect(w.active).toBe(false);
    w.apply(start(7));
    w.apply(end(3)); // older than the open window: stale
    expect(w.active).toBe(true);
  });

  it('closes a window whose end never came at its backstop expiry', () => {
    const { clock, windows: w } = windows(1_000);
    w.apply(start(1, 20));
    clock.ms = 3 * 20_000 - 1;
    expect(w.active).toBe(true);
    clock.ms = 3 * 20_000;
    expect(w.active).toBe(false);
    expect(w.relax(100)).toBe(100);
  });

  it('applies the same notification from many connections once', () => {
    const { windows: w } = windows();
    expect(w.apply(start(4))).toBe(true);
    expect(w.apply(start(4))).toBe(false);
    expect(w.apply(end(4))).toBe(true);
    // A repeat of the start, arriving late on another connection, does not reopen the window.
    expect(w.apply(start(4))).toBe(false);
    expect(w.active).toBe(false);
  });
});

describe('parseMaintenance', () => {
  it('reads the pushes of PROTOCOL.md §5, with extra trailing fields', () => {
    expect(parseMaintenance(['MOVING', 3, 15, '10.0.0.2:6380'])).toEqual({
      kind: 'moving',
      seq: 3,
      timeS: 15,
      to: { host: '10.0.0.2', port: 6380 },
    });
    expect(parseMaintenance(['moving', '3', '15', null])).toMatchObject({ kind: 'moving', to: null });
    expect(parseMaintenance(['MOVING', 3, 15, '[::1]:6380'])).toMatchObject({
      to: { host: '::1', port: 6380 },
    });
    expect(parseMaintenance(['MIGRATING', 9, 30, '1', '2'])).toEqual({
      kind: 'start',
      type: 'MIGRATING',
      seq: 9,
      timeS: 30,
    });
    expect(parseMaintenance([Buffer.from('FAILED_OVER'), 9, 'shard-1'])).toEqual({
      kind: 'end',
      type: 'FAILED_OVER',
      seq: 9,
    });
  });

  it('leaves other pushes and malformed notifications alone', () => {
    expect(parseMaintenance(['message', 'ch', 'x'])).toBeUndefined();
    expect(parseMaintenance(['invalidate', ['k']])).toBeUndefined();
    expect(parseMaintenance(['MOVING', 'x', 15, 'h:1'])).toBeUndefined();
    expect(parseMaintenance(['MOVING', 1, 15, 'no-port'])).toBeUndefined();
    expect(parseMaintenance(['MIGRATING', 1])).toBeUndefined();
  });
});
