// The outage chart (bench/results/outage.svg), as SVG text built by hand: no dependency. Two
// panels over one time axis, seconds from the start of the blip: completed calls per second, and
// the p99 wait of callers on a log scale; one line per contender, the blip shaded, axes, a legend.
import type { ChartSeries } from './series.js';

export interface ChartLine {
  name: string;
  series: ChartSeries;
  /** A dashed vertical mark, e.g. where the circuit opened, seconds from the start of the blip. */
  mark?: { atS: number; label: string } | undefined;
}

export interface ChartInput {
  title: string;
  subtitle: string;
  /** What the shaded band says, e.g. `Redis black-holed`. */
  blipLabel: string;
  blipS: number;
  /** The offered rate, drawn as a dashed reference line. */
  offeredPerSecond: number;
  lines: readonly ChartLine[];
}

const WIDTH = 1000;
const HEIGHT = 720;
const LEFT = 84;
const RIGHT = 24;
const TOP_PANEL = { top: 118, bottom: 380 };
const BOTTOM_PANEL = { top: 430, bottom: 660 };
const COLORS = ['#1a9850', '#7b3294', '#e66101', '#2c7bb6', '#8c510a', '#c51b7d'];
const FONT = 'font-family="Helvetica, Arial, sans-serif"';

export function renderOutageChart(input: ChartInput): string {
  const points = input.lines.flatMap((line) => times(line.series));
  const fromS = Math.min(0, ...points);
  const toS = Math.max(input.blipS, ...points.map((t) => t + 0.001));
  const x = (seconds: number) => LEFT + ((seconds - fromS) / (toS - fromS)) * (WIDTH - LEFT - RIGHT);

  const rates = input.lines.flatMap((line) => line.series.throughput);
  const rateTop = niceCeiling(Math.max(input.offeredPerSecond, ...rates) * 1.1);
  const yRate = (value: number) => TOP_PANEL.bottom - (value / rateTop) * (TOP_PANEL.bottom - TOP_PANEL.top);

  const waits = input.lines
    .flatMap((line) => line.series.p99WaitMs)
    .filter((v): v is number => v !== null && v > 0);
  const lowDecade = Math.max(-3, Math.floor(Math.log10(Math.min(1, ...waits))));
  const highDecade = Math.max(lowDecade + 1, Math.ceil(Math.log10(Math.max(10, ...waits))));
  const yWait = (ms: number) => {
    const decade = Math.min(highDecade, Math.max(lowDecade, Math.log10(Math.max(ms, 10 ** lowDecade))));
    return (
      BOTTOM_PANEL.bottom -
      ((decade - lowDecade) / (highDecade - lowDecade)) * (BOTTOM_PANEL.bottom - BOTTOM_PANEL.top)
    );
  };

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" ${FONT} font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    text(LEFT, 28, input.title, 'font-size="18" font-weight="bold"'),
    text(LEFT, 48, input.subtitle, 'font-size="12" fill="#444444"'),
    ...legend(input.lines, 74),
  ];
  for (const panel of [TOP_PANEL, BOTTOM_PANEL]) {
    out.push(
      `<rect x="${f(x(0))}" y="${panel.top}" width="${f(x(input.blipS) - x(0))}" height="${panel.bottom - panel.top}" fill="#d62728" fill-opacity="0.09"/>`,
    );
  }
  out.push(text(x(0) + 6, TOP_PANEL.top + 14, input.blipLabel, 'fill="#b2182b"'));

  // Throughput panel: grid, axis labels, offered rate, one line per contender.
  out.push(text(LEFT, TOP_PANEL.top - 8, 'completed calls per second', 'font-weight="bold"'));
  for (const value of ticks(rateTop)) {
    out.push(
      gridLine(LEFT, WIDTH - RIGHT, yRate(value)),
      label(LEFT - 8, yRate(value) + 4, formatCount(value)),
    );
  }
  out.push(
    `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${f(yRate(input.offeredPerSecond))}" y2="${f(yRate(input.offeredPerSecond))}" stroke="#555555" stroke-dasharray="6 4"/>`,
    text(
      WIDTH - RIGHT - 4,
      yRate(input.offeredPerSecond) - 5,
      `offered ${formatCount(input.offeredPerSecond)}/s`,
      'text-anchor="end" fill="#555555"',
    ),
  );
  input.lines.forEach((line, index) => {
    const coordinates = line.series.throughput.map(
      (value, b) => [x(bucketTime(line.series, b)), yRate(value)] as const,
    );
    out.push(polyline(coordinates, color(index)));
  });

  // Wait panel: decades, one line per contender broken where no caller settled or waited.
  out.push(
    text(
      LEFT,
      BOTTOM_PANEL.top - 8,
      'p99 wait of callers (settled in, or still waiting at the end of, each bucket; log scale)',
      'font-weight="bold"',
    ),
  );
  for (let decade = lowDecade; decade <= highDecade; decade++) {
    const y = yWait(10 ** decade);
    out.push(gridLine(LEFT, WIDTH - RIGHT, y), label(LEFT - 8, y + 4, formatMs(10 ** decade)));
  }
  input.lines.forEach((line, index) => {
    let run: (readonly [number, number])[] = [];
    const flush = () => {
      if (run.length > 0) out.push(polyline(run, color(index)));
      run = [];
    };
    line.series.p99WaitMs.forEach((value, b) => {
      if (value === null) flush();
      else run.push([x(bucketTime(line.series, b)), yWait(value)]);
    });
    flush();
    if (line.mark !== undefined) {
      const markX = x(line.mark.atS);
      out.push(
        `<line x1="${f(markX)}" x2="${f(markX)}" y1="${BOTTOM_PANEL.top}" y2="${BOTTOM_PANEL.bottom}" stroke="${color(index)}" stroke-dasharray="3 3"/>`,
        text(markX + 4, BOTTOM_PANEL.top + 14 + index * 14, line.mark.label, `fill="${color(index)}"`),
      );
    }
  });

  // The shared time axis.
  for (const panel of [TOP_PANEL, BOTTOM_PANEL]) {
    out.push(
      `<rect x="${LEFT}" y="${panel.top}" width="${WIDTH - LEFT - RIGHT}" height="${panel.bottom - panel.top}" fill="none" stroke="#333333"/>`,
    );
  }
  for (let second = Math.ceil(fromS); second <= toS; second += timeStep(toS - fromS)) {
    out.push(
      `<line x1="${f(x(second))}" x2="${f(x(second))}" y1="${BOTTOM_PANEL.bottom}" y2="${BOTTOM_PANEL.bottom + 5}" stroke="#333333"/>`,
      text(x(second), BOTTOM_PANEL.bottom + 18, String(second), 'text-anchor="middle"'),
    );
  }
  out.push(
    text(
      (LEFT + WIDTH - RIGHT) / 2,
      BOTTOM_PANEL.bottom + 40,
      'seconds from the start of the blip',
      'text-anchor="middle"',
    ),
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function times(series: ChartSeries): number[] {
  return series.throughput.map((_, b) => bucketTime(series, b));
}

/** The middle of bucket `b`, seconds from the start of the blip. */
function bucketTime(series: ChartSeries, b: number): number {
  return series.fromS + ((b + 0.5) * series.bucketMs) / 1000;
}

function legend(lines: readonly ChartLine[], y: number): string[] {
  const items: string[] = [];
  let at = LEFT;
  lines.forEach((line, index) => {
    items.push(
      `<line x1="${at}" x2="${at + 24}" y1="${y - 4}" y2="${y - 4}" stroke="${color(index)}" stroke-width="3"/>`,
      text(at + 30, y, line.name),
    );
    at += 30 + line.name.length * 7 + 28;
  });
  return items;
}

function color(index: number): string {
  return COLORS[index % COLORS.length]!;
}

function polyline(points: readonly (readonly [number, number])[], stroke: string): string {
  if (points.length === 1) {
    const [px, py] = points[0]!;
    return `<circle cx="${f(px)}" cy="${f(py)}" r="2.5" fill="${stroke}"/>`;
  }
  const list = points.map(([px, py]) => `${f(px)},${f(py)}`).join(' ');
  return `<polyline points="${list}" fill="none" stroke="${stroke}" stroke-width="2" stroke-linejoin="round" stroke-opacity="0.9"/>`;
}

function gridLine(x1: number, x2: number, y: number): string {
  return `<line x1="${x1}" x2="${x2}" y1="${f(y)}" y2="${f(y)}" stroke="#e0e0e0"/>`;
}

function label(xRight: number, y: number, content: string): string {
  return text(xRight, y, content, 'text-anchor="end" fill="#333333"');
}

function text(x: number, y: number, content: string, attributes = ''): string {
  return `<text x="${f(x)}" y="${f(y)}"${attributes ? ` ${attributes}` : ''}>${escapeXml(content)}</text>`;
}

export function escapeXml(content: string): string {
  return content.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** 1, 2 or 5 times a power of ten, at least `value`. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** About five round ticks from 0 to `top`. */
function ticks(top: number): number[] {
  const step = niceCeiling(top / 5);
  const values: number[] = [];
  for (let value = 0; value <= top + step / 1e6; value += step) values.push(value);
  return values;
}

function timeStep(spanS: number): number {
  return spanS <= 12 ? 1 : spanS <= 30 ? 2 : 5;
}

function formatCount(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 0 });
}

function formatMs(ms: number): string {
  if (ms >= 1000) return `${ms / 1000} s`;
  return `${Number(ms.toPrecision(1))} ms`;
}

/** Coordinates with one decimal: enough for a screen, and a smaller file. */
function f(value: number): string {
  return String(Math.round(value * 10) / 10);
}
