// One node's view of a Redis Cluster, read from `CLUSTER NODES`, and the check that every live
// node holds the same view (the kit's "the cluster agrees" condition).

/** Inclusive slot range `[first, last]`. */
export type SlotRange = readonly [number, number];

/** What one node says about one node (itself or a peer). */
export interface NodeEntry {
  readonly id: string;
  readonly port: number;
  readonly busPort: number;
  readonly role: 'primary' | 'replica';
  /** The primary a replica follows (`-` in CLUSTER NODES: none). */
  readonly primaryId: string | undefined;
  readonly slots: readonly SlotRange[];
  readonly configEpoch: number;
  /** CLUSTER NODES flags besides the role: `myself`, `fail?`, `fail`, `handshake`, `noaddr`… */
  readonly flags: readonly string[];
  readonly connected: boolean;
  /** Slots this node (only on its own `myself` line) is migrating or importing. */
  readonly migrating: readonly number[];
  readonly importing: readonly number[];
}

/** Parses a `CLUSTER NODES` reply (one line per known node). */
export function parseClusterNodes(text: string): NodeEntry[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id, address, flagText, primary, , , epoch, link, ...slotTokens] = line.trim().split(' ');
      // `ip:port@cport[,hostname]`
      const match = /:(\d+)@(\d+)/.exec(address ?? '');
      const allFlags = (flagText ?? '').split(',');
      const slots: [number, number][] = [];
      const migrating: number[] = [];
      const importing: number[] = [];
      for (const token of slotTokens) {
        const open = /^\[(\d+)-([<>])-/.exec(token);
        if (open) (open[2] === '>' ? migrating : importing).push(Number(open[1]));
        else {
          const [first, last] = token.split('-');
          slots.push([Number(first), Number(last ?? first)]);
        }
      }
      return {
        id: id!,
        port: Number(match?.[1] ?? 0),
        busPort: Number(match?.[2] ?? 0),
        role: allFlags.includes('slave') ? 'replica' : 'primary',
        primaryId: primary === '-' ? undefined : primary,
        slots,
        configEpoch: Number(epoch),
        flags: allFlags.filter((flag) => flag !== 'master' && flag !== 'slave' && flag !== 'noflags'),
        connected: link === 'connected',
        migrating,
        importing,
      } satisfies NodeEntry;
    });
}

/** The parts of an entry every node must report alike. */
function agreedShape(entry: NodeEntry): string {
  return JSON.stringify([entry.id, entry.port, entry.role, entry.primaryId, entry.slots, entry.configEpoch]);
}

const UNHEALTHY_FLAGS = ['fail?', 'fail', 'handshake', 'noaddr'];

/**
 * Why the views of the live nodes (keyed by node id) do not agree yet, or `true` when they do:
 * every live node knows every node in `expectedIds`, sees the other live ones healthy and
 * connected, and reports each live node's role, primary, slots and config epoch the same way.
 */
export function disagreement(
  views: ReadonlyMap<string, readonly NodeEntry[]>,
  expectedIds: readonly string[],
): true | string {
  const liveIds = [...views.keys()];
  let reference: string | undefined;
  for (const [observer, view] of views) {
    const byId = new Map(view.map((entry) => [entry.id, entry]));
    for (const id of expectedIds) if (!byId.has(id)) return `${observer} does not know ${id} yet`;
    if (byId.size !== expectedIds.length)
      return `${observer} knows ${byId.size} nodes, not ${expectedIds.length}`;
    const shapes: string[] = [];
    for (const id of liveIds) {
      const entry = byId.get(id)!;
      const bad = entry.flags.find((flag) => UNHEALTHY_FLAGS.includes(flag));
      if (bad) return `${observer} flags ${id} ${bad}`;
      if (!entry.connected) return `${observer} has no link to ${id}`;
      shapes.push(agreedShape(entry));
    }
    const shape = shapes.sort().join('\n');
    reference ??= shape;
    if (shape !== reference) return `${observer} sees a different topology:\n${shape}\nvs\n${reference}`;
  }
  return true;
}

/** The range list as a set test: whether `slot` is in one of `ranges`. */
export function slotInRanges(slot: number, ranges: readonly SlotRange[]): boolean {
  return ranges.some(([first, last]) => slot >= first && slot <= last);
}

/** `count` contiguous ranges covering 0–16383, split as `redis-cli --cluster create` does. */
export function splitSlots(count: number): SlotRange[] {
  const ranges: SlotRange[] = [];
  let first = 0;
  for (let i = 0; i < count; i++) {
    const last = Math.round((16384 * (i + 1)) / count) - 1;
    ranges.push([first, last]);
    first = last + 1;
  }
  return ranges;
}
