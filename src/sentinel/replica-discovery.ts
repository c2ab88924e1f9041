// The replicas to read from (issue 12 "Discovery", PROTOCOL.md §3.6): SENTINEL REPLICAS from the
// first sentinel that answers, without those flagged s_down, o_down or disconnected, each then
// checked with ROLE (data credentials) and kept only when it says `slave`.
import { type RespireEndpoint, RespireServerError } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { askInTurn, type DiscoveryContext } from './ask-in-turn.js';
import { checkRole } from './primary-discovery.js';
import { type Instances, readInstances } from './replies.js';

export interface ReplicaDiscovery {
  /** Replicas the sentinels report healthy and that say ROLE slave, by address. */
  readonly replicas: RespireEndpoint[];
  /**
   * Some replica may become usable soon without an event telling: the sentinel is still
   * connecting to it (right after a switch), or it does not say `slave` yet (a demoted primary
   * keeps saying `master` for seconds, PROTOCOL.md §3.4), or ROLE did not reach it.
   */
  readonly unsettled: boolean;
}

export async function discoverReplicas(context: DiscoveryContext): Promise<ReplicaDiscovery> {
  const {
    value: { usable: listed, connecting },
  } = await askInTurn(context, ['SENTINEL', 'REPLICAS', context.sentinel.serviceName], readReplicas);
  const roles = await Promise.all(
    listed.map((replica) => checkRole(context, replica).catch(() => 'unreachable')),
  );
  // In address order: sentinels list replicas in no fixed order, and a reorder is no change.
  const replicas = listed.filter((_, index) => roles[index] === 'slave').sort(byAddress);
  return { replicas, unsettled: connecting > 0 || replicas.length < listed.length };
}

function readReplicas(reply: RespValue | Error, sentinel: RespireEndpoint): Instances | null {
  // `-ERR No such master with that name`: this sentinel does not know the service.
  if (reply instanceof RespireServerError && reply.code === 'ERR' && /no such master/i.test(reply.message)) {
    return null;
  }
  if (reply instanceof Error) throw reply;
  return readInstances('SENTINEL REPLICAS', reply, sentinel);
}

function byAddress(a: RespireEndpoint, b: RespireEndpoint): number {
  return a.host === b.host ? a.port - b.port : a.host < b.host ? -1 : 1;
}
