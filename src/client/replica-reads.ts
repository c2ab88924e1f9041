// Reads on replicas under `readFrom` (API.md): which commands may go to a replica, and which replica
// takes the next one. Shared by the standalone (`replicaEndpoints`), Cluster and Sentinel routers.
import { type Command, CommandFlags } from '../transport/command.js';
import type { ReadFrom } from './mode-options.js';
import type { EndpointNode } from './node/endpoint-node.js';
import { isReadOnlyCommand } from './read-only-commands.js';

/** Whether `command` may go to a replica: a read-only, non-blocking command under a replica `readFrom`. */
export function readsFromReplica(command: Command<unknown>, readFrom: ReadFrom): boolean {
  return (
    readFrom !== 'primary' && (command.flags & CommandFlags.Blocking) === 0 && isReadOnlyCommand(command.args)
  );
}

/**
 * A page of a cursor walk (SCAN, HSCAN, SSCAN, ZSCAN): its cursor is a position in one server's
 * hash table, so a walk continued on another replica (its own table, its own replication offset)
 * can miss keys present throughout (seed 000: scan cursor pages stay on their connection).
 */
const CURSOR_PAGES = new Set(['SCAN', 'HSCAN', 'SSCAN', 'ZSCAN']);

function isCursorPage(command: Command<unknown>): boolean {
  return CURSOR_PAGES.has(command.name);
}

/** Replicas taking reads in turn. */
export class ReplicaTurns {
  private turn = 0;

  /**
   * The next replica in turn that has a connection: a down one would hold the read until it
   * reconnects (or is dropped) while another could serve it. Undefined when none is connected.
   * A cursor page takes no turn: it goes to the first connected replica, the same one for every
   * page of a walk while the connected replicas stay the same.
   */
  connected(replicas: readonly EndpointNode[], command: Command<unknown>): EndpointNode | undefined {
    if (isCursorPage(command)) return replicas.find((replica) => replica.main.current !== undefined);
    for (let tried = 0; tried < replicas.length; tried++) {
      const replica = replicas[this.turn++ % replicas.length]!;
      if (replica.main.current !== undefined) return replica;
    }
    return undefined;
  }

  /** The next replica in turn, connected or not; undefined when there are none. */
  any(replicas: readonly EndpointNode[]): EndpointNode | undefined {
    return replicas.length === 0 ? undefined : replicas[this.turn++ % replicas.length];
  }
}
