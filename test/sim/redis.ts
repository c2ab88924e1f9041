// The simulated Redis (issue 16): real state for the commands the workloads use (strings, INCR,
// DEL, lists with BLPOP, streams' XADD, MULTI/EXEC/WATCH, PUBLISH/SUBSCRIBE) and the handshake
// (HELLO, CLIENT, PING, SELECT, QUIT). Commands from every connection run one at a time in arrival
// order, as on the real single-threaded server, and every executed one is logged with its reply,
// which is what the invariants check the client against. Before running a command it asks the fault
// plan whether to reset the connection first, or right after (the reply then never leaves).
// A Cluster or Sentinel world (cluster.ts, sentinel.ts) shares a store between a primary and its
// replicas (synchronous replication), a pub/sub bus between nodes, and adds its commands and its
// refusals (MOVED, ASK, TRYAGAIN, READONLY) through NodeHooks.

import type { SimLink, SimListener } from './network.js';
import type { Scheduler } from './scheduler.js';
import { type Blocked, type NodeHooks, type NodeShared, newStore, Session, type Value } from './session.js';
import { encodeReply, OK, type Reply } from './wire.js';

export interface ExecutedCommand {
  readonly time: number;
  readonly link: number;
  readonly args: readonly string[];
  readonly reply: Reply;
  /** Run by EXEC as part of a transaction. */
  readonly inTransaction: boolean;
}

/** What the fault plan does to a command about to run. */
export type CommandFault =
  | 'none'
  | 'reset-before'
  | 'reset-after'
  | 'blackhole'
  | 'close-after'
  | 'stall'
  | 'corrupt';

export interface ServerFaults {
  beforeCommand(args: readonly string[]): CommandFault;
  /** How long a stalled command keeps the server busy, ms. */
  stallMs(): number;
}

export class SimRedis implements SimListener {
  readonly log: ExecutedCommand[];
  /** What the client should never send (bad framing, a command behind a blocked one): violations. */
  readonly misuse: string[] = [];
  private readonly data: Map<string, Value>;
  private readonly versions: Map<string, number>;
  private readonly sessions: Set<Session>;
  private readonly hooks: NodeHooks | undefined;
  private readonly blocked: Blocked[] = [];
  /** Requests from every connection in arrival order. */
  private readonly inbox: { session: Session; args: string[] }[] = [];
  private busyUntil = 0;
  private pumping = false;
  private streamSeq = 0;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly faults: ServerFaults,
    shared: NodeShared = {},
  ) {
    const store = shared.store ?? newStore();
    this.data = store.data;
    this.versions = store.versions;
    this.sessions = shared.bus ?? new Set();
    this.log = shared.log ?? [];
    this.hooks = shared.hooks;
  }

  accept(link: SimLink): void {
    const session = new Session(this, link);
    link.peer = {
      receive: (chunk) => session.receive(chunk),
      gone: () => this.drop(session),
    };
    this.sessions.add(session);
  }

  /** The value of a key now (for the invariants). */
  get(key: string): Value | undefined {
    return this.data.get(key);
  }

  enqueue(session: Session, args: string[]): void {
    this.inbox.push({ session, args });
    this.pump();
  }

  protocolError(session: Session, error: unknown): void {
    this.misuse.push(`link ${session.link.id}: ${String(error)}`);
    session.link.reset('protocol error');
  }

  private pump(): void {
    if (this.pumping) return;
    const now = this.scheduler.now();
    if (now < this.busyUntil) {
      this.pumping = true;
      this.scheduler.at(this.busyUntil, 'io', 'server busy ends', () => {
        this.pumping = false;
        this.pump();
      });
      return;
    }
    while (this.inbox.length > 0 && this.scheduler.now() >= this.busyUntil) {
      const { session, args } = this.inbox.shift()!;
      if (session.gone || session.link.closed) continue;
      if (session.blocked !== undefined || session.waiting.length > 0) {
        // A command behind a blocked one waits for it however long it blocks: the client lends a
        // connection to one blocking command at a time and drops it when it stops waiting.
        const blocked = session.blocked?.args[0];
        if (blocked !== undefined)
          this.misuse.push(`link ${session.link.id}: ${args[0]} was sent behind a blocked ${blocked}`);
        session.waiting.push(args);
        continue;
      }
      this.run(session, args);
    }
    if (this.inbox.length > 0) this.pump();
  }

  private run(session: Session, args: string[]): void {
    const fault = this.faults.beforeCommand(args);
    if (fault === 'reset-before') {
      session.link.reset(`before ${args[0]}`);
      return;
    }
    if (fault === 'blackhole') session.link.blackhole();
    if (fault === 'stall') {
      const ms = this.faults.stallMs();
      this.busyUntil = this.scheduler.now() + ms;
      this.scheduler.trace(`server stalls ${ms.toFixed(1)} ms at ${args[0]}`);
    }
    const name = args[0]!.toUpperCase();
    const refused = this.hooks?.refuse(session, name, args);
    if (refused !== undefined) {
      this.scheduler.trace(`refused ${name}: ${JSON.stringify(refused)}`);
      // Redis flags a transaction whose queued command is refused, and discards one whose EXEC is.
      if (name === 'EXEC') session.multi = undefined;
      else if (session.multi !== undefined) session.multiFailed = true;
    }
    const reply = refused ?? this.execute(session, args);
    this.hooks?.after(session, name);
    if (reply === undefined) return; // blocked, or a subscription (pushes were sent)
    if (fault === 'reset-after') {
      session.link.reset(`after ${args[0]}`);
      return;
    }
    if (fault === 'corrupt') {
      // A frame no RESP decoder accepts: the client must drop the connection, not misalign.
      session.link.toClient(Buffer.from(`?${encodeReply(reply, session.protocol).slice(1)}`));
      return;
    }
    this.send(session, reply);
    if (fault === 'close-after') session.link.serverClose();
  }

  send(session: Session, reply: Reply): void {
    session.link.toClient(Buffer.from(encodeReply(reply, session.protocol)));
  }

  private logged(session: Session, args: readonly string[], reply: Reply, inTransaction = false): Reply {
    this.log.push({ time: this.scheduler.now(), link: session.link.id, args, reply, inTransaction });
    return reply;
  }

  /** Runs one command; undefined when it sends its reply later (blocked) or not as one reply. */
  private execute(session: Session, args: string[]): Reply | undefined {
    const name = args[0]!.toUpperCase();
    if (session.multi !== undefined && !['EXEC', 'DISCARD', 'MULTI', 'WATCH'].includes(name)) {
      const check = this.arityError(name, args);
      if (check !== undefined) {
        session.multiFailed = true;
        return check;
      }
      session.multi.push(args);
      return { ok: 'QUEUED' };
    }
    switch (name) {
      case 'MULTI':
        if (session.multi !== undefined) return { error: 'ERR MULTI calls can not be nested' };
        session.multi = [];
        session.multiFailed = false;
        return this.logged(session, args, OK);
      case 'EXEC':
        return this.exec(session, args);
      case 'DISCARD':
        if (session.multi === undefined) return { error: 'ERR DISCARD without MULTI' };
        session.multi = undefined;
        session.watched.clear();
        return this.logged(session, args, OK);
      case 'WATCH':
        if (session.multi !== undefined) return { error: 'ERR WATCH inside MULTI is not allowed' };
        for (const key of args.slice(1)) session.watched.set(key, this.versions.get(key) ?? 0);
        return this.logged(session, args, OK);
      case 'UNWATCH':
        session.watched.clear();
        return this.logged(session, args, OK);
      case 'BLPOP':
        return this.blpop(session, args);
      case 'SUBSCRIBE':
        for (const channel of args.slice(1)) {
          session.channels.add(channel);
          this.send(session, { push: ['subscribe', channel, session.channels.size] });
        }
        this.logged(session, args, null);
        return undefined;
      case 'UNSUBSCRIBE': {
        const names = args.length > 1 ? args.slice(1) : [...session.channels];
        for (const channel of names) {
          session.channels.delete(channel);
          this.send(session, { push: ['unsubscribe', channel, session.channels.size] });
        }
        if (names.length === 0) this.send(session, { push: ['unsubscribe', null, 0] });
        this.logged(session, args, null);
        return undefined;
      }
      case 'QUIT':
        this.send(session, OK);
        session.link.serverClose();
        this.drop(session);
        return undefined;
      default:
        return this.logged(session, args, this.command(session, name, args));
    }
  }

  private arityError(name: string, args: string[]): Reply | undefined {
    const min: Record<string, number> = {
      GET: 2,
      SET: 3,
      INCR: 2,
      INCRBY: 3,
      DEL: 2,
      XADD: 5,
      RPUSH: 3,
      PUBLISH: 3,
    };
    const need = min[name];
    if (need === undefined) return { error: `ERR unknown command '${args[0]}'` };
    return args.length < need
      ? { error: `ERR wrong number of arguments for '${args[0]}' command` }
      : undefined;
  }

  private exec(session: Session, args: string[]): Reply {
    const queued = session.multi;
    if (queued === undefined) return { error: 'ERR EXEC without MULTI' };
    session.multi = undefined;
    const watched = [...session.watched];
    session.watched.clear();
    if (session.multiFailed) {
      return this.logged(session, args, {
        error: 'EXECABORT Transaction discarded because of previous errors.',
      });
    }
    if (watched.some(([key, version]) => (this.versions.get(key) ?? 0) !== version)) {
      return this.logged(session, args, null);
    }
    const replies = queued.map((entry) =>
      this.logged(session, entry, this.command(session, entry[0]!.toUpperCase(), entry), true),
    );
    return this.logged(session, args, replies);
  }

  /** The commands with a plain reply. */
  private command(session: Session, name: string, args: string[]): Reply {
    switch (name) {
      case 'HELLO': {
        const protocol = Number(args[1] ?? session.protocol);
        if (protocol !== 2 && protocol !== 3) return { error: 'NOPROTO unsupported protocol version' };
        session.protocol = protocol;
        const { mode, role } = this.hooks?.hello() ?? { mode: 'standalone', role: 'master' };
        return {
          map: [
            ['server', 'redis'],
            ['version', '7.2.0'],
            ['proto', protocol],
            ['id', session.link.id],
            ['mode', mode],
            ['role', role],
            ['modules', []],
          ],
        };
      }
      case 'PING':
        // A RESP2 connection in subscribed mode gets PING's reply as an array (Redis does so).
        if (session.channels.size > 0 && session.protocol === 2) return ['pong', args[1] ?? ''];
        return args[1] ?? { ok: 'PONG' };
      case 'ECHO':
        return args[1] ?? { error: 'ERR wrong number of arguments' };
      case 'CLIENT':
      case 'SELECT':
        return OK;
      case 'GET': {
        const value = this.data.get(args[1]!);
        if (value === undefined) return null;
        return value.type === 'string' ? value.value : wrongType();
      }
      case 'SET':
        this.write(args[1]!, { type: 'string', value: args[2]! });
        return OK;
      case 'INCR':
      case 'INCRBY': {
        const current = this.data.get(args[1]!);
        if (current !== undefined && current.type !== 'string') return wrongType();
        const by = name === 'INCR' ? 1 : Number(args[2]);
        const next = Number(current?.value ?? '0') + by;
        this.write(args[1]!, { type: 'string', value: String(next) });
        return next;
      }
      case 'DEL': {
        let removed = 0;
        for (const key of args.slice(1)) {
          if (this.data.has(key)) {
            removed++;
            this.write(key, undefined);
          }
        }
        return removed;
      }
      case 'RPUSH': {
        const list = this.list(args[1]!);
        if (list === undefined) return wrongType();
        list.push(...args.slice(2));
        this.write(args[1]!, { type: 'list', items: list });
        const length = list.length;
        this.serveBlocked(args[1]!);
        return length;
      }
      case 'XADD': {
        const current = this.data.get(args[1]!) ?? { type: 'stream' as const, entries: [] };
        if (current.type !== 'stream') return wrongType();
        const id = `${Math.floor(this.scheduler.now())}-${this.streamSeq++}`;
        current.entries.push([id, ...args.slice(3)]);
        this.write(args[1]!, current);
        return id;
      }
      case 'PUBLISH':
        return this.publish(args[1]!, args[2]!);
      default:
        return this.hooks?.command(session, name, args) ?? { error: `ERR unknown command '${args[0]}'` };
    }
  }

  /** Sends `message` to every subscriber of `channel` on the bus; returns how many. */
  publish(channel: string, message: string): number {
    let receivers = 0;
    for (const other of this.sessions) {
      if (!other.channels.has(channel) || other.gone) continue;
      receivers++;
      other.server.send(other, { push: ['message', channel, message] });
    }
    return receivers;
  }

  /** Answers each blocked command `refuse` refuses with its refusal (a slot moved, a demotion). */
  refuseBlocked(refuse: (args: readonly string[]) => Reply | undefined): void {
    for (const blocked of [...this.blocked]) {
      const reply = refuse(blocked.args);
      if (reply === undefined) continue;
      this.unblock(blocked);
      this.send(blocked.session, reply);
      const session = blocked.session;
      this.scheduler.after(0, 'refused blocked', () => this.resume(session));
    }
  }

  private list(key: string): string[] | undefined {
    const current = this.data.get(key);
    if (current === undefined) return [];
    return current.type === 'list' ? current.items : undefined;
  }

  private write(key: string, value: Value | undefined): void {
    if (value === undefined) this.data.delete(key);
    else this.data.set(key, value);
    this.versions.set(key, (this.versions.get(key) ?? 0) + 1);
  }

  private blpop(session: Session, args: string[]): Reply | undefined {
    const keys = args.slice(1, -1);
    const timeoutSeconds = Number(args[args.length - 1]);
    for (const key of keys) {
      const list = this.list(key);
      if (list !== undefined && list.length > 0) return this.pop(session, args, key, list);
    }
    if (session.multi !== undefined) return this.logged(session, args, null);
    const blocked: Blocked = { session, args, keys, timer: undefined };
    if (timeoutSeconds > 0) {
      blocked.timer = this.scheduler.after(timeoutSeconds * 1000, 'BLPOP timeout', () => {
        this.unblock(blocked);
        this.send(session, this.logged(session, args, null));
        this.resume(session);
      });
    }
    session.blocked = blocked;
    this.blocked.push(blocked);
    return undefined;
  }

  private pop(session: Session, args: readonly string[], key: string, list: string[]): Reply {
    const item = list.shift()!;
    this.write(key, list.length === 0 ? undefined : { type: 'list', items: list });
    return this.logged(session, args, [key, item]);
  }

  private serveBlocked(key: string): void {
    for (const blocked of [...this.blocked]) {
      const list = this.list(key);
      if (list === undefined || list.length === 0) return;
      if (!blocked.keys.includes(key)) continue;
      this.unblock(blocked);
      this.send(blocked.session, this.pop(blocked.session, blocked.args, key, list));
      const session = blocked.session;
      this.scheduler.after(0, 'unblocked', () => this.resume(session));
    }
  }

  private unblock(blocked: Blocked): void {
    this.scheduler.cancel(blocked.timer);
    blocked.session.blocked = undefined;
    const i = this.blocked.indexOf(blocked);
    if (i >= 0) this.blocked.splice(i, 1);
  }

  /** Runs what a blocked connection received meanwhile. */
  private resume(session: Session): void {
    while (session.waiting.length > 0 && session.blocked === undefined && !session.gone) {
      this.run(session, session.waiting.shift()!);
    }
  }

  private drop(session: Session): void {
    session.gone = true;
    if (session.blocked !== undefined) this.unblock(session.blocked);
    this.sessions.delete(session);
  }
}

function wrongType(): Reply {
  return { error: 'WRONGTYPE Operation against a key holding the wrong kind of value' };
}
