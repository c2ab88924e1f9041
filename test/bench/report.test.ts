// The table: Respire's ratio to each peer, oriented so that above 1× means Respire is ahead.
import { describe, expect, it } from 'vitest';
import { formatSuiteTable, formatTables, isRespire } from '../../bench/report.js';
import type { BenchResult } from '../../bench/suite.js';

const result = (client: string, value: number, unit = 'ops/s', caseName = 'GET'): BenchResult => ({
  suite: 's',
  case: caseName,
  client,
  value,
  unit,
});

describe('formatSuiteTable', () => {
  it('divides Respire by the peer for rates and the peer by Respire for costs', () => {
    const table = formatSuiteTable('s', [
      result('respire', 200),
      result('ioredis', 100),
      result('respire', 50, 'ns/op'),
      result('ioredis', 150, 'ns/op'),
    ]);
    expect(table).toContain('respire / ioredis = 2.00×');
    expect(table).toContain('ioredis / respire = 3.00×');
  });

  it('gives every Respire variant its own ratio and compares only within a case and unit', () => {
    const table = formatSuiteTable('s', [
      result('respire', 300),
      result('respire CommandEncoder', 600),
      result('peer', 100),
      result('peer', 1, 'ops/s', 'SET'),
    ]);
    const lines = table.split('\n');
    const peerGet = lines.filter((line) => line.includes('peer') && line.includes('×'));
    expect(peerGet).toHaveLength(1);
    expect(peerGet[0]).toContain('respire / peer = 3.00×; respire CommandEncoder / peer = 6.00×');
    expect(lines[0]).toBe('s');
    expect(lines[1]).toMatch(/^case\s+client\s+value\s+unit\s+ratio$/);
  });

  it('aligns values to the right and prints case names once', () => {
    const table = formatSuiteTable('s', [result('respire', 1_234_567), result('peer', 9)]);
    const [, , first, second] = table.split('\n');
    expect(first).toContain('1,234,567');
    expect(second!.startsWith('   ')).toBe(true);
    expect(first!.indexOf('1,234,567') + '1,234,567'.length).toBe(second!.indexOf('9') + 1);
  });
});

describe('formatTables', () => {
  it('prints one table per suite', () => {
    const text = formatTables([result('respire', 1), { ...result('respire', 2), suite: 't' }]);
    expect(text.split('\n\n').map((table) => table.split('\n')[0])).toEqual(['s', 't']);
  });
});

describe('isRespire', () => {
  it('knows Respire’s own rows', () => {
    expect(isRespire('respire')).toBe(true);
    expect(isRespire('respire CommandEncoder')).toBe(true);
    expect(isRespire('respire, circuit closed')).toBe(true);
    expect(isRespire('respire-ish')).toBe(false);
    expect(isRespire('ioredis')).toBe(false);
  });
});
