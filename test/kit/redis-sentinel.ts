// Starts a primary, its replicas and Sentinels watching them (`redis-server <conf> --sentinel`) on
// free loopback ports, waits until every sentinel agrees, drives failovers, and always stops them.
// No vitest import here: `npm run bench` compiles and uses this file too (see vitest-redis.ts).

import { randomBytes } from 'node:crypto';
import { type AdminOptions, type AdminTarget, adminCommand, fieldsOf, type Reply } from './admin-command.js';
import { findFreePort, isPortFree, LOOPBACK } from './free-port.js';
import { type AclUser, type RedisServer, startRedisServer } from './redis-server.js';
import type { WireArgument } from './resp-wire.js';
import { sentinelDisagreement } from './sentinel-view.js';
import { takeTopologySlot } from './topology-gate.js';
import { waitUntil } from './wait-until.js';

/** A sentinel as the others' config names it before it starts. */
interface SentinelPeer {
  readonly port: number;
  readonly id: string;
}

export interface RedisSentinelOptions {
  /** The name sentinels monitor the primary under. Default `mymaster`. */
  serviceName?: string;
  /** Default 2. */
  replicas?: number;
  /** Default 3. */
  sentinels?: number;
  /** Sentinels that must agree the primary is down. Default 2. */
  quorum?: number;
  /**
   * `down-after-milliseconds`. Default 2,000 ms: with 1 s, a loaded 2-core machine (CI) saw the
   * sentinels declare a just-promoted primary down and fail over a second time.
   */
  downAfterMs?: number;
  /**
   * `failover-timeout`. Default 5,000 ms. A sentinel starts no automatic failover of the same
   * primary within twice this of its last one (or of a vote it cast), so a `killPrimary()` right
   * after a `failover()` takes up to 10 s longer.
   */
  failoverTimeoutMs?: number;
  /** `requirepass` on the sentinels (clients and the other sentinels need it). */
  sentinelPassword?: string;
  /**
   * Credentials of the data nodes: `requirepass` (no `username`) or an ACL user (with `username`),
   * also used by replicas (`masteruser`/`masterauth`), sentinels (`auth-user`/`auth-pass`) and the kit.
   */
  dataAuth?: { username?: string; password: string };
  /** Extra config lines for the data nodes. */
  dataConfigLines?: readonly string[];
  /** Deadline for everyone to agree after a start, failover or restart. Default 60,000 ms. */
  settleTimeoutMs?: number;
  /**
   * The sentinels' own periods. `'fast'` (the default) sets them with `SENTINEL DEBUG` after the
   * start (`FAST_PERIODS`): a demoted primary or a new replica is seen in about a second rather
   * than ten, so the kit's waits for agreement end that much sooner. `'redis'` keeps Redis's
   * defaults, as the benchmark measures with. A sentinel restarted by hand gets Redis's defaults.
   */
  periods?: 'fast' | 'redis';
}

/**
 * INFO asked of every data node each second instead of every ten (roles and replicas seen
 * sooner), and TILT left after 5 s instead of 30 (a stalled test machine does not freeze the
 * sentinels for long). Hellos keep their 2 s: a sentinel turns a node that reports itself primary
 * against its view back into a replica after four hello periods, and at 0.5 s that raced the
 * spreading of a planned failover (a second failover followed).
 */
const FAST_PERIODS = ['SENTINEL', 'DEBUG', 'info-period', 1_000, 'tilt-period', 5_000] as const;

export interface DataNode {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  /** As last agreed. */
  readonly role: 'primary' | 'replica';
  /** False after `killPrimary` until `restartDataNode`. */
  readonly running: boolean;
}

export interface FailoverOptions {
  /**
   * Also wait until every running data node replicates the new primary. A primary demoted by
   * `failover()` still reports itself primary after the switch, and the sentinels turn it into a
   * replica only after four hello periods (7–8 s measured). Default true.
   */
  untilSettled?: boolean;
}

export interface RedisSentinelGroup {
  readonly serviceName: string;
  /** Where the sentinels listen, for the client's `sentinel.endpoints`. */
  readonly sentinels: readonly { host: string; port: number }[];
  /** Every data node, in start order (the first primary first). */
  readonly dataNodes: readonly DataNode[];
  readonly primary: DataNode;
  readonly replicas: readonly DataNode[];
  /** Run a command on a data node (with `dataAuth`), over the kit's own connection. */
  command(node: { port: number }, args: readonly WireArgument[], options?: AdminOptions): Promise<Reply>;
  /** Run a command on the `index`th sentinel (with `sentinelPassword`). */
  sentinelCommand(index: number, args: readonly WireArgument[]): Promise<Reply>;
  /** `SENTINEL FAILOVER`; resolves with the new primary once every sentinel reports it. */
  failover(options?: FailoverOptions): Promise<DataNode>;
  /** SIGKILL the primary; resolves with the replica the sentinels promoted, once they all agree. */
  killPrimary(options?: FailoverOptions): Promise<DataNode>;
  /** Restart a data node on its port (empty); resolves once it replicates the current primary. */
  restartDataNode(node: { port: number }): Promise<void>;
  /** Wait until the sentinels and the data nodes agree on the current primary. */
  settle(options?: FailoverOptions): Promise<void>;
  dataServer(node: { port: number }): RedisServer;
  sentinelServer(index: number): RedisServer;
  logs(): string;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Start the primary, then its replicas, then the sentinels (which then see the replicas at once).
 * The data nodes start before the wait for the machine's topology slot, as the cluster kit's nodes
 * do (it saves the chain of slot holders their spawn and first sync): idle, with no sentinel
 * watching them yet, nothing they do while waiting can fail them over or load the holder's group.
 * The sentinels, whose timers decide failovers, start only with the slot.
 */
export async function startRedisSentinel(options: RedisSentinelOptions = {}): Promise<RedisSentinelGroup> {
  const group = new RedisSentinelProcess(options);
  try {
    await group.startDataNodes();
    group.holdSlot(await takeTopologySlot());
    await group.startSentinels();
  } catch (error) {
    await group.stop();
    throw error;
  }
  return group;
}

class RedisSentinelProcess implements RedisSentinelGroup {
  readonly serviceName: string;
  private readonly data: RedisServer[] = [];
  private readonly watchers: RedisServer[] = [];
  private readonly down = new Set<number>();
  private primaryPort = 0;
  private stopped = false;
  /** Gives back the machine's topology slot (topology-gate.ts), once taken. */
  private releaseSlot: () => void = () => undefined;

  constructor(private readonly options: RedisSentinelOptions) {
    this.serviceName = options.serviceName ?? 'mymaster';
  }

  holdSlot(release: () => void): void {
    this.releaseSlot = release;
  }

  get sentinels(): readonly { host: string; port: number }[] {
    return this.watchers.map(({ host, port }) => ({ host, port }));
  }

  get dataNodes(): readonly DataNode[] {
    return this.data.map((server) => ({
      host: server.host,
      port: server.port,
      url: server.url,
      role: server.port === this.primaryPort ? 'primary' : 'replica',
      running: !this.down.has(server.port),
    }));
  }

  get primary(): DataNode {
    return this.dataNodes.find((node) => node.role === 'primary')!;
  }

  get replicas(): readonly DataNode[] {
    return this.dataNodes.filter((node) => node.role === 'replica');
  }

  command(node: { port: number }, args: readonly WireArgument[], options?: AdminOptions): Promise<Reply> {
    return adminCommand(this.dataTarget(this.dataServer(node)), args, options);
  }

  sentinelCommand(index: number, args: readonly WireArgument[]): Promise<Reply> {
    return adminCommand(this.sentinelTarget(this.sentinelServer(index)), args);
  }

  dataServer(node: { port: number }): RedisServer {
    const server = this.data.find((candidate) => candidate.port === node.port);
    if (!server) throw new Error(`no data node on port ${node.port}`);
    return server;
  }

  sentinelServer(index: number): RedisServer {
    const server = this.watchers[index];
    if (!server) throw new Error(`no sentinel #${index}`);
    return server;
  }

  async startDataNodes(): Promise<void> {
    const primary = await startRedisServer(this.dataOptions([]));
    this.data.push(primary);
    this.primaryPort = primary.port;
    const replicas = await Promise.allSettled(
      Array.from({ length: this.options.replicas ?? 2 }, () =>
        startRedisServer(this.dataOptions([`replicaof ${primary.host} ${primary.port}`])),
      ),
    );
    this.data.push(...replicas.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])));
    const failed = replicas.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    // Sentinels learn replicas from the primary's INFO, asked at once on connecting but then only
    // every 10 s: start them after the replicas are attached.
    await waitUntil('the replicas to attach', () => this.dataAgreement(), this.waitOptions());
  }

  async startSentinels(): Promise<void> {
    const primary = this.dataServer({ port: this.primaryPort });
    // Sentinels find each other through hello messages sent every 2 s; told of one another in
    // their config (ids and ports chosen here), they link up at once instead.
    const peers = await Promise.all(
      Array.from({ length: this.options.sentinels ?? 3 }, async () => ({
        port: await findFreePort(),
        id: randomBytes(20).toString('hex'),
      })),
    );
    const sentinels = await Promise.allSettled(
      peers.map((self) =>
        startRedisServer({
          args: ['--sentinel'],
          preferredPort: self.port,
          configLines: [...this.sentinelConfig(primary), ...this.peerConfig(self, peers)],
        }),
      ),
    );
    this.watchers.push(
      ...sentinels.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])),
    );
    const failedSentinel = sentinels.find((result) => result.status === 'rejected');
    if (failedSentinel) throw failedSentinel.reason;
    if ((this.options.periods ?? 'fast') === 'fast') {
      await Promise.all(
        this.watchers.map((server) => adminCommand(this.sentinelTarget(server), FAST_PERIODS)),
      );
    }
    await this.settle();
  }

  async settle(options: FailoverOptions = {}): Promise<void> {
    await waitUntil(
      `the sentinels to agree on ${this.serviceName}`,
      async () => {
        await this.followUnaskedSwitch();
        const sentinels = await this.sentinelAgreement(options.untilSettled ?? true);
        return sentinels === true ? this.dataAgreement(options.untilSettled ?? true) : sentinels;
      },
      this.waitOptions(),
    );
  }

  async failover(options?: FailoverOptions): Promise<DataNode> {
    const old = this.primaryPort;
    await this.sentinelCommand(0, ['SENTINEL', 'FAILOVER', this.serviceName]);
    return this.followSwitch(old, options);
  }

  async killPrimary(options?: FailoverOptions): Promise<DataNode> {
    const old = this.primaryPort;
    const server = this.dataServer({ port: old });
    server.kill('SIGKILL');
    await server.waitForExit();
    this.down.add(old);
    return this.followSwitch(old, options);
  }

  async restartDataNode(node: { port: number }): Promise<void> {
    await this.dataServer(node).restart();
    this.down.delete(node.port);
    await this.settle();
  }

  logs(): string {
    const describe = (kind: string) => (server: RedisServer) =>
      `--- ${kind} ${server.port}:\n${server.log()}`;
    return [...this.data.map(describe('data node')), ...this.watchers.map(describe('sentinel'))].join('\n');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all([...this.watchers, ...this.data].map((server) => server.stop()));
    this.releaseSlot();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  /**
   * Wait until every sentinel names another primary than `oldPort`, then until all agree. While one
   * lags, the timeout's message says why it might (its failover state, epoch, TILT, and whether
   * something else now listens on the old port), refreshed once a second to keep the load low.
   */
  private async followSwitch(oldPort: number, options?: FailoverOptions): Promise<DataNode> {
    let detail = '';
    let detailAt = 0;
    await waitUntil(
      `the sentinels to promote a replica of ${oldPort}`,
      async () => {
        const ports = await Promise.all(this.watchers.map((_, index) => this.reportedPrimaryPort(index)));
        if (ports.some((port) => port === oldPort || port !== ports[0])) {
          if (Date.now() - detailAt >= 1_000) {
            detailAt = Date.now();
            detail = await this.laggingDetail(ports, oldPort).catch((error: Error) => error.message);
          }
          return `sentinels report ${ports}; ${detail}`;
        }
        this.primaryPort = ports[0]!;
        return true;
      },
      this.waitOptions(),
    );
    await this.settle(options);
    return this.primary;
  }

  /**
   * Sentinels may fail over on their own: on a loaded machine a new primary busy with a full sync
   * can stay silent past `down-after-milliseconds`. Once all of them name the same other running
   * node, it is the primary the tests must see; waiting for the one asked for would time out.
   */
  private async followUnaskedSwitch(): Promise<void> {
    const ports = await Promise.all(this.watchers.map((_, index) => this.reportedPrimaryPort(index)));
    const named = ports[0];
    if (named === undefined || named === this.primaryPort || ports.some((port) => port !== named)) return;
    if (this.down.has(named) || !this.data.some((server) => server.port === named)) return;
    console.warn(`the sentinels of ${this.serviceName} moved the primary to ${named} on their own`);
    this.primaryPort = named;
  }

  /** What each sentinel still naming `oldPort` says of the service and of itself. */
  private async laggingDetail(ports: readonly number[], oldPort: number): Promise<string> {
    const lagging = ports.flatMap((port, index) => (port === oldPort ? [index] : []));
    const views = await Promise.all(
      lagging.map(async (index) => {
        const master = fieldsOf(await this.sentinelCommand(index, ['SENTINEL', 'MASTER', this.serviceName]));
        const info = String(await this.sentinelCommand(index, ['INFO', 'sentinel']));
        const tilt = /sentinel_tilt:(\d+)/.exec(info)?.[1];
        const fields = ['flags', 'failover-state', 'config-epoch', 'num-other-sentinels'];
        return `sentinel ${this.watchers[index]!.port}: ${fields.map((f) => `${f}=${master[f]}`).join(' ')} tilt=${tilt}`;
      }),
    );
    const reused = this.down.has(oldPort) && !(await isPortFree(oldPort));
    return `${views.join('; ')}${reused ? `; port ${oldPort} is taken by another process` : ''}`;
  }

  private async reportedPrimaryPort(index: number): Promise<number> {
    const address = await this.sentinelCommand(index, [
      'SENTINEL',
      'GET-MASTER-ADDR-BY-NAME',
      this.serviceName,
    ]);
    return Array.isArray(address) ? Number(address[1]) : 0;
  }

  private sentinelAgreement(untilSettled: boolean): Promise<true | string> {
    return sentinelDisagreement({
      sentinels: this.watchers.map((server) => this.sentinelTarget(server)),
      serviceName: this.serviceName,
      primaryPort: this.primaryPort,
      replicaPorts: untilSettled ? this.runningReplicaPorts() : [],
    });
  }

  /** The primary says `master`; each running replica (all when `untilSettled`) replicates it, link up. */
  private async dataAgreement(untilSettled = true): Promise<true | string> {
    const primaryRole = (await this.command({ port: this.primaryPort }, ['ROLE'])) as Reply[];
    if (primaryRole[0] !== 'master') return `${this.primaryPort} says ROLE ${primaryRole[0]}`;
    if (!untilSettled) return true;
    for (const port of this.runningReplicaPorts()) {
      const role = (await this.command({ port }, ['ROLE'])) as Reply[];
      if (role[0] !== 'slave' || Number(role[2]) !== this.primaryPort || role[3] !== 'connected') {
        return `${port} says ROLE ${JSON.stringify(role)}`;
      }
    }
    return true;
  }

  private runningReplicaPorts(): number[] {
    return this.data
      .map((server) => server.port)
      .filter((port) => port !== this.primaryPort && !this.down.has(port));
  }

  private dataOptions(extra: readonly string[]): Parameters<typeof startRedisServer>[0] {
    const auth = this.options.dataAuth;
    const lines = ['repl-diskless-sync-delay 0', 'repl-ping-replica-period 1', ...extra];
    const aclUsers: AclUser[] = [];
    if (auth?.username !== undefined) {
      // The named user is the only way in, as where ACL users replace the shared password.
      aclUsers.push({ name: auth.username, password: auth.password }, { name: 'default', rules: ['off'] });
      lines.push(`masteruser "${auth.username}"`);
    } else if (auth) lines.push(`requirepass "${auth.password}"`);
    if (auth) lines.push(`masterauth "${auth.password}"`);
    return { aclUsers, configLines: [...lines, ...(this.options.dataConfigLines ?? [])] };
  }

  /** `self`'s id and the other sentinels as known ones (a port taken meanwhile is fixed by hellos). */
  private peerConfig(self: SentinelPeer, peers: readonly SentinelPeer[]): string[] {
    const name = this.serviceName;
    return [
      `sentinel myid ${self.id}`,
      ...peers
        .filter((peer) => peer !== self)
        .map((peer) => `sentinel known-sentinel ${name} ${LOOPBACK} ${peer.port} ${peer.id}`),
    ];
  }

  private sentinelConfig(primary: RedisServer): string[] {
    const name = this.serviceName;
    const lines = [
      `sentinel monitor ${name} ${primary.host} ${primary.port} ${this.options.quorum ?? 2}`,
      `sentinel down-after-milliseconds ${name} ${this.options.downAfterMs ?? 2_000}`,
      `sentinel failover-timeout ${name} ${this.options.failoverTimeoutMs ?? 5_000}`,
      `sentinel parallel-syncs ${name} 1`,
    ];
    const auth = this.options.dataAuth;
    if (auth?.username !== undefined) lines.push(`sentinel auth-user ${name} "${auth.username}"`);
    if (auth) lines.push(`sentinel auth-pass ${name} "${auth.password}"`);
    const password = this.options.sentinelPassword;
    // Sentinels authenticate to each other with `sentinel-pass` (Redis 6.2+).
    if (password !== undefined)
      lines.push(`requirepass "${password}"`, `sentinel sentinel-pass "${password}"`);
    return lines;
  }

  private dataTarget(server: RedisServer): AdminTarget {
    const auth = this.options.dataAuth;
    return { host: server.host, port: server.port, username: auth?.username, password: auth?.password };
  }

  private sentinelTarget(server: RedisServer): AdminTarget {
    return { host: server.host, port: server.port, password: this.options.sentinelPassword };
  }

  private waitOptions(): { timeoutMs: number } {
    return { timeoutMs: this.options.settleTimeoutMs ?? 60_000 };
  }
}
