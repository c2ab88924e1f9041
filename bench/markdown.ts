// `npm run bench -- --markdown`: the tables the README's benchmark tables are pasted from, so the
// README never drifts from the last run. For each case, Respire's ratio to the fastest peer
// configuration of that run comes first, and its ratio to each peer at its defaults beside it
// (issue 17: every peer appears at its defaults and at its fastest setting). Pure functions of
// the rows, so they are tested on fixture JSON.
import { formatValue, higherIsBetter, isRespire, perSuite, respireRatio } from './report.js';
import type { BenchResult } from './suite.js';

/** Units whose ratios mean something: rates, and costs where lower is better. */
const COST_UNITS = new Set(['ns/op', 'CPU ns/op', 'CPU µs/op', 'bytes', 'bytes/op']);

function hasRatio(unit: string): boolean {
  return higherIsBetter(unit) || COST_UNITS.has(unit);
}

/**
 * Floors and ceilings bound what any client could do (`redis-benchmark`, `indexOf floor`,
 * `floor: performance.now() alone`); they are shown, never taken as the fastest peer.
 */
export function isBound(client: string): boolean {
  return client.startsWith('redis-benchmark') || /\bfloor\b/.test(client);
}

/**
 * A peer at its defaults: no other peer's name is a prefix of its own. `ioredis auto-pipelining`
 * and `node-redis, no command timeout` are configurations of `ioredis` and `node-redis`.
 */
export function isPeerDefault(client: string, peers: readonly string[]): boolean {
  return !peers.some(
    (other) => other !== client && (client.startsWith(`${other} `) || client.startsWith(`${other},`)),
  );
}

/** `2.63× node-redis, no command timeout (82,300 vs 31,260 ops/s)` */
function describeRatio(respire: BenchResult, peer: BenchResult): string {
  const ratio = respireRatio(respire, peer);
  const shown = Number.isNaN(ratio) ? '–' : Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '∞';
  return `${shown} ${peer.client} (${formatValue(respire.value)} vs ${formatValue(peer.value)})`;
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');
}

/**
 * One suite's markdown: a ratio table for the cases where Respire meets a peer, and a table of
 * values (cases by client) for the rest: Respire-only suites and units without a direction.
 * Derived ratio rows (unit starting with `×`) are left out: the ratio table says the same.
 */
export function formatSuiteMarkdown(suite: string, rows: readonly BenchResult[]): string {
  const measured = rows.filter((r) => !r.unit.startsWith('×'));
  const ratioRows: string[][] = [];
  const compared = new Set<BenchResult>();
  for (const key of new Set(measured.map((r) => `${r.case}\u0000${r.unit}`))) {
    const group = measured.filter((r) => `${r.case}\u0000${r.unit}` === key);
    const ours = group.filter((r) => isRespire(r.client));
    const peers = group.filter((r) => !isRespire(r.client) && !isBound(r.client));
    const bounds = group.filter((r) => isBound(r.client));
    if (ours.length === 0 || peers.length === 0 || !hasRatio(group[0]!.unit)) continue;
    const peerNames = peers.map((p) => p.client);
    const defaults = peers.filter((p) => isPeerDefault(p.client, peerNames));
    for (const respire of ours) {
      // The fastest configuration is the one Respire's ratio is lowest against.
      const fastest = peers.reduce((best, p) =>
        respireRatio(respire, p) < respireRatio(respire, best) ? p : best,
      );
      ratioRows.push([
        respire.case,
        respire.unit,
        respire.client,
        describeRatio(respire, fastest),
        defaults.map((p) => describeRatio(respire, p)).join('; '),
        bounds.map((b) => `${formatValue(b.value)} ${b.client}`).join('; '),
      ]);
    }
    for (const r of group) compared.add(r);
  }
  const parts = [`#### ${suite}`];
  if (ratioRows.length > 0) {
    parts.push(
      table(
        [
          'case',
          'unit',
          'Respire',
          'vs the fastest peer configuration',
          'vs each peer at its defaults',
          'bounds',
        ],
        ratioRows,
      ),
    );
  }
  const rest = measured.filter((r) => !compared.has(r));
  if (rest.length > 0) parts.push(valuesTable(rest));
  return parts.join('\n\n');
}

/** Cases (with their unit) down, clients across, values in the cells. */
function valuesTable(rows: readonly BenchResult[]): string {
  const clients = [...new Set(rows.map((r) => r.client))];
  const keys = [...new Set(rows.map((r) => `${r.case}\u0000${r.unit}`))];
  const body = keys.map((key) => {
    const [name, unit] = key.split('\u0000') as [string, string];
    return [
      name,
      unit,
      ...clients.map((client) => {
        const found = rows.find((r) => r.case === name && r.unit === unit && r.client === client);
        return found === undefined ? '' : formatValue(found.value);
      }),
    ];
  });
  return table(['case', 'unit', ...clients], body);
}

/** Every suite's markdown, in the order the suites' rows appear. */
export function formatMarkdown(results: readonly BenchResult[]): string {
  return perSuite(results, formatSuiteMarkdown);
}
