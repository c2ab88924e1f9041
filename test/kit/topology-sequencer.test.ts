import { describe, expect, it } from 'vitest';
import { spread } from './topology-sequencer.js';

describe('spread', () => {
  it('puts the same share of light files after each heavy one, keeping both orders', () => {
    expect(spread(['A', 'B'], ['1', '2', '3', '4', '5'])).toEqual(['A', '1', '2', '3', 'B', '4', '5']);
    expect(spread(['A', 'B', 'C'], ['1'])).toEqual(['A', 'B', '1', 'C']);
  });

  it('puts at most the given share between two heavy ones, and what is left at the end', () => {
    expect(spread(['A', 'B', 'C'], ['1', '2', '3', '4', '5', '6', '7'], 1.5)).toEqual([
      'A',
      '1',
      '2',
      'B',
      '3',
      'C',
      '4',
      '5',
      '6',
      '7',
    ]);
  });

  it('keeps a list with no heavy or no light files as it is', () => {
    expect(spread([], ['1', '2'])).toEqual(['1', '2']);
    expect(spread(['A', 'B'], [])).toEqual(['A', 'B']);
  });
});
