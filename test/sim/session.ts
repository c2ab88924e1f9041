// A simulated Redis node's parts that a world shares or extends (issue 16): the keyspace (one per
// primary and its replicas: replication is synchronous, so a failover loses no acknowledged write
// and the invariants can demand every one), the connection state, and the hooks through which a
// Cluster or Sentinel world adds its commands and refusals to redis.ts.
import type { SimLink } from './network.js';
import type { ExecutedCommand, SimRedis } from './redis.js';
import type { Scheduler } from './scheduler.js';
import { type Reply, RequestParser } from './wire.js';

/** What a Cluster or Sentinel world adds to a node. */
export interface NodeHooks {
  /** HELLO's `mode` and `role`. */
  hello(): { mode: string; role: string };
  /** A refusal instead of running the command (MOVED, ASK, TRYAGAIN, READONLY…); not logged. */
  refuse(session: Session, name: string, args: readonly string[]): Reply | undefined;
  /** The world's own commands (CLUSTER, ASKING, ROLE, SENTINEL…); undefined when not one. */
  command(session: Session, name: string, args: readonly string[]): Reply | undefined;
  /** After a command ran or was refused (ASKING lasts one command, or one transaction). */
  after(session: Session, name: string): void;
}

/** The keyspace: shared by a primary and its replicas, whose replication is synchronous. */
export interface Store {
  readonly data: Map<string, Value>;
  readonly versions: Map<string, number>;
}

export function newStore(): Store {
  return { data: new Map(), versions: new Map() };
}

/** What a node shares with others of its world. */
export interface NodeShared {
  readonly store?: Store;
  /** Subscribers PUBLISH reaches: every node's in a Cluster, the primary's and replicas' otherwise. */
  readonly bus?: Set<Session>;
  /** Every node of a world logs to one log, in the order the world ran the commands. */
  readonly log?: ExecutedCommand[];
  readonly hooks?: NodeHooks;
}

export type Value =
  | { type: 'string'; value: string }
  | { type: 'list'; items: string[] }
  | { type: 'stream'; entries: string[][] };

export interface Blocked {
  session: Session;
  args: readonly string[];
  keys: string[];
  timer: ReturnType<Scheduler['after']> | undefined;
}

export class Session {
  protocol: 2 | 3 = 2;
  readonly parser = new RequestParser();
  multi: string[][] | undefined;
  multiFailed = false;
  watched = new Map<string, number>();
  channels = new Set<string>();
  blocked: Blocked | undefined;
  /** Requests parsed but not yet run (behind a blocked command). */
  readonly waiting: string[][] = [];
  gone = false;
  /** Per-connection state of a world's hooks (ASKING, READONLY). */
  readonly marks = new Set<string>();

  constructor(
    readonly server: SimRedis,
    readonly link: SimLink,
  ) {}

  receive(chunk: Buffer): void {
    if (this.gone) return;
    this.parser.push(chunk);
    try {
      for (let args = this.parser.take(); args !== undefined; args = this.parser.take())
        this.server.enqueue(this, args);
    } catch (error) {
      this.server.protocolError(this, error);
    }
  }
}
