// What "every sentinel agrees" means for the sentinel kit, asked of each sentinel in turn:
// the same primary, healthy, with the expected replicas listed healthy, and all the other sentinels.
import { type AdminTarget, adminCommand, fieldsOf, type Reply } from './admin-command.js';

export interface SentinelExpectation {
  /** Every sentinel; all must be running. */
  sentinels: readonly AdminTarget[];
  serviceName: string;
  primaryPort: number;
  /** Replicas each sentinel must list without `s_down`, `o_down` or `disconnected` flags. */
  replicaPorts: readonly number[];
}

/** `true` when every sentinel agrees, else what one of them still says otherwise. */
export async function sentinelDisagreement(expected: SentinelExpectation): Promise<true | string> {
  const { serviceName: name, primaryPort } = expected;
  for (const sentinel of expected.sentinels) {
    const who = `sentinel ${sentinel.port}`;
    const address = await adminCommand(sentinel, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name]);
    if (!Array.isArray(address) || Number(address[1]) !== primaryPort) {
      return `${who} names ${JSON.stringify(address)}, not port ${primaryPort}`;
    }
    const primary = fieldsOf(await adminCommand(sentinel, ['SENTINEL', 'MASTER', name]));
    if (primary.flags !== 'master') return `${who} flags the primary ${primary.flags}`;
    const peers = entries(await adminCommand(sentinel, ['SENTINEL', 'SENTINELS', name]));
    const healthyPeers = peers.filter((peer) => peer.flags === 'sentinel').length;
    if (healthyPeers !== expected.sentinels.length - 1)
      return `${who} knows ${healthyPeers} healthy sentinels`;
    const replicas = entries(await adminCommand(sentinel, ['SENTINEL', 'REPLICAS', name]));
    for (const port of expected.replicaPorts) {
      const replica = replicas.find((entry) => Number(entry.port) === port);
      if (!replica) return `${who} does not list replica ${port}`;
      // Only the flags: a sentinel refreshes a healthy replica's master-port and link every 10 s,
      // and a client takes replicas by their flags, then checks them with ROLE (as the kit does).
      if (replica.flags !== 'slave') return `${who} flags replica ${port} ${replica.flags}`;
    }
  }
  return true;
}

function entries(reply: Reply): Record<string, Reply>[] {
  return Array.isArray(reply) ? reply.map(fieldsOf) : [];
}
