// The outage chart's SVG, built by hand: well-formed, every contender in the legend with its own
// colour, the blip shaded, a latency line broken where no caller settled or waited, text escaped.
import { describe, expect, it } from 'vitest';
import { type ChartInput, escapeXml, niceCeiling, renderOutageChart } from '../../bench/outage/chart.js';
import type { ChartSeries } from '../../bench/outage/series.js';

function series(throughput: number[], p99WaitMs: (number | null)[]): ChartSeries {
  return { fromS: -1, bucketMs: 250, throughput, p99WaitMs };
}

const INPUT: ChartInput = {
  title: 'A 2 s blip',
  subtitle: 'producers & <calls>',
  blipLabel: 'Redis black-holed',
  blipS: 2,
  offeredPerSecond: 5_000,
  lines: [
    {
      name: 'respire + breaker',
      series: series(
        [5_000, 5_000, 0, 0, 0, 0, 0, 0, 0, 0, 5_000, 5_000],
        [1, 1, 2, 3, 0.05, 0.04, 0.05, 0.04, 0.05, 0.04, 1, 1],
      ),
      mark: { atS: 0.6, label: 'circuit opened' },
    },
    {
      name: 'ioredis',
      series: series(
        [5_000, 5_000, 0, 0, 0, 0, 0, 0, 0, 0, 5_000, 5_000],
        [1, 1, null, 500, 750, 1_000, 1_250, 1_500, 1_750, 2_000, 1, 1],
      ),
    },
  ],
};

/** Tags open and close in order (every element here is either self-closing or closed). */
function balanced(svg: string): boolean {
  const stack: string[] = [];
  for (const [, closing, name, selfClosing] of svg.matchAll(/<(\/?)([a-z]+)[^>]*?(\/?)>/g)) {
    if (selfClosing) continue;
    if (!closing) stack.push(name!);
    else if (stack.pop() !== name) return false;
  }
  return stack.length === 0;
}

describe('renderOutageChart', () => {
  const svg = renderOutageChart(INPUT);

  it('is one well-formed SVG document with a white background', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="720"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(balanced(svg)).toBe(true);
    expect(svg).not.toMatch(/NaN|Infinity|undefined/);
  });

  it('has a legend entry per contender, each line in its own colour, and escapes text', () => {
    expect(svg).toContain('>respire + breaker</text>');
    expect(svg).toContain('>ioredis</text>');
    expect(svg).toContain('producers &#38; &#60;calls&#62;');
    const colours = new Set(
      [...svg.matchAll(/<polyline [^>]*stroke="(#[0-9a-f]{6})"/g)].map((match) => match[1]),
    );
    expect(colours.size).toBe(2);
  });

  it('shades the blip in both panels and marks where the circuit opened', () => {
    expect(svg.match(/fill="#d62728" fill-opacity/g)).toHaveLength(2);
    expect(svg).toContain('Redis black-holed');
    expect(svg).toContain('>circuit opened</text>');
    expect(svg).toContain('offered 5,000/s');
  });

  it('breaks a latency line where a bucket had no caller, and labels decades on the log axis', () => {
    // Throughput: one line each. Latency: respire one line; ioredis a line, a gap, then another.
    expect(svg.match(/<polyline /g)).toHaveLength(2 + 1 + 2);
    for (const label of ['0.01 ms', '1 ms', '100 ms', '1 s']) expect(svg).toContain(`>${label}</text>`);
    expect(svg).toContain('seconds from the start of the blip');
  });
});

describe('chart helpers', () => {
  it('rounds axis tops up to 1, 2 or 5 times a power of ten', () => {
    expect([niceCeiling(5_500), niceCeiling(10_000), niceCeiling(0.3), niceCeiling(0)]).toEqual([
      10_000, 10_000, 0.5, 1,
    ]);
  });

  it('escapes the five XML specials', () => {
    expect(escapeXml(`<a & "b" 'c'>`)).toBe('&#60;a &#38; &#34;b&#34; &#39;c&#39;&#62;');
  });
});
