// When the cluster kit calls a Redis Cluster settled: every running node answers alike and healthy,
// asked over the kit's own connections (CLUSTER NODES, CLUSTER SHARDS, CLUSTER INFO, INFO).
import { type AdminTarget, adminCommand, fieldsOf, infoFields, type Reply } from './admin-command.js';
import { disagreement, type NodeEntry, parseClusterNodes, type SlotRange } from './cluster-view.js';

export interface RunningNode {
  readonly id: string;
  readonly target: AdminTarget;
}

/** Before REPLICATE: every node lists all the others, none of them still in handshake. */
export async function everyoneKnowsEveryone(targets: readonly AdminTarget[]): Promise<true | string> {
  for (const target of targets) {
    const view = parseClusterNodes(String(await adminCommand(target, ['CLUSTER', 'NODES'])));
    const pending = view.some((entry) => entry.flags.includes('handshake'));
    if (view.length < targets.length || pending) return `port ${target.port} knows ${view.length}`;
  }
  return true;
}

/**
 * The agreed view, or what is still missing: every running node holds the same view
 * (disagreement()), flags the killed ones (`down`) `fail`, reports every running node `online` in
 * CLUSTER SHARDS, has no slot migrating or importing, says `cluster_state:ok`, and, if a replica,
 * has its link up; and the primaries cover all 16384 slots.
 */
export async function clusterAgreement(
  running: readonly RunningNode[],
  allIds: readonly string[],
  down: ReadonlySet<string>,
): Promise<NodeEntry[] | string> {
  const views = new Map<string, NodeEntry[]>();
  for (const { id, target } of running) {
    views.set(id, parseClusterNodes(String(await adminCommand(target, ['CLUSTER', 'NODES']))));
  }
  const agreed = disagreement(views, allIds);
  if (agreed !== true) return agreed;
  for (const { id, target } of running) {
    const view = views.get(id)!;
    for (const dead of down) {
      if (!view.find((entry) => entry.id === dead)?.flags.includes('fail'))
        return `${id} has not failed ${dead}`;
    }
    const unhealthy = shardHealth(await adminCommand(target, ['CLUSTER', 'SHARDS'])).find(
      ([node, health]) => !down.has(node) && health !== 'online',
    );
    // A client skips `loading` nodes (PROTOCOL.md §2.4): wait until replicas report `online`.
    if (unhealthy) return `${id} reports ${unhealthy[0]} ${unhealthy[1]} in CLUSTER SHARDS`;
    const self = view.find((entry) => entry.flags.includes('myself'))!;
    if (self.migrating.length + self.importing.length > 0) return `${id} has a slot in migration`;
    const info = await infoFields(target, ['CLUSTER', 'INFO']);
    if (info.cluster_state !== 'ok') return `${id} says cluster_state:${info.cluster_state}`;
    if (self.role === 'replica') {
      const link = (await infoFields(target, ['INFO', 'replication'])).master_link_status;
      if (link !== 'up') return `replica ${id} has its link ${link}`;
    }
  }
  const view = views.values().next().value!;
  const covered = view
    .filter((entry) => entry.role === 'primary')
    .reduce((sum, entry) => sum + slotCount(entry.slots), 0);
  return covered === 16384 ? view : `only ${covered} slots are assigned`;
}

/** `[node id, health]` for every node in a CLUSTER SHARDS reply (RESP2: flat field lists). */
function shardHealth(reply: Reply): [string, string][] {
  const shards = Array.isArray(reply) ? reply : [];
  return shards.flatMap((shard) => {
    const nodes = fieldsOf(shard).nodes;
    return (Array.isArray(nodes) ? nodes : []).map((node): [string, string] => {
      const fields = fieldsOf(node);
      return [String(fields.id), String(fields.health)];
    });
  });
}

function slotCount(ranges: readonly SlotRange[]): number {
  return ranges.reduce((sum, [first, last]) => sum + last - first + 1, 0);
}
