// Keeps the Cluster topology current (issue 11 "Topology", PROTOCOL.md §2.4): read from the seeds
// at start; then on request (MOVED, CLUSTERDOWN, a node failing) and every `refreshInterval` with
// jitter. Refreshes are coalesced (one in flight) and at least MIN_GAP_MS apart; each asks the known
// nodes in turn, then the seeds, so it never needs a seed that has died, and asks the nodes whose
// read just failed last (refresh-order.ts). A new topology replaces the old one whole.
import type { ResolvedOptions } from '../client/options.js';
import { RespireConnectionError, type RespireEndpoint } from '../errors.js';
import { clientClosedError } from '../transport/channel-errors.js';
import { startTimer, stopTimer, type Timer } from '../util/timers.js';
import { RefreshOrder } from './refresh-order.js';
import type { ClusterTopology } from './topology.js';
import { readTopology, type TopologyReadOptions } from './topology-reader.js';

/** Refreshes on request are at least this far apart, so a burst of MOVED replies asks once. */
const MIN_GAP_MS = 100;

interface Candidate {
  readonly endpoint: RespireEndpoint;
  readonly blankHost: string;
}

export class TopologyRefresher {
  /** The current topology; set once `start()` resolved. */
  topology: ClusterTopology | undefined;
  private refreshing: Promise<void> | undefined;
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  /** A requested refresh waiting for MIN_GAP_MS to pass. */
  private pending:
    | {
        readonly promise: Promise<void>;
        readonly timer: Timer;
        readonly settle: () => void;
      }
    | undefined;
  private periodic: Timer | undefined;
  private stopped = false;
  /** Aborted by stop(): a topology read in flight ends at once, not at its deadline. */
  private readonly stopping = new AbortController();
  private readonly reading: TopologyReadOptions;
  private readonly order = new RefreshOrder();

  constructor(
    private readonly options: ResolvedOptions,
    private readonly onChange: (topology: ClusterTopology) => void,
  ) {
    this.reading = {
      settings: {
        tls: options.tls,
        protocol: options.protocol,
        username: options.username,
        password: options.password,
        clientName: options.clientName,
        database: 0,
        connectTimeout: options.connectTimeout,
        commandTimeout: options.connectTimeout,
        returnBuffers: false,
        clock: options.clock,
        socketFactory: options.socketFactory,
        signal: this.stopping.signal,
      },
      addressMap: options.cluster.addressMap,
    };
  }

  /** The first topology, from the seeds in turn. */
  async start(): Promise<void> {
    await this.refresh();
    this.schedulePeriodic();
  }

  /** Replaces the topology with a patched one (a MOVED); the full refresh follows. */
  patch(change: (topology: ClusterTopology) => ClusterTopology): void {
    if (this.topology !== undefined) this.topology = change(this.topology);
  }

  /**
   * A refresh soon: at once unless one started in the last MIN_GAP_MS; one in flight or already
   * requested covers it. Settles once that refresh has ended (whatever its outcome).
   */
  requestRefresh(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.refreshing !== undefined) return this.refreshing.catch(ignore);
    if (this.pending !== undefined) return this.pending.promise;
    const wait = Math.max(0, this.lastStartedAt + MIN_GAP_MS - this.options.clock.now());
    let settle!: () => void;
    const promise = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const timer = startTimer(
      this.options.clock,
      () => {
        this.pending = undefined;
        this.refresh().catch(ignore).then(settle);
      },
      wait,
      true,
    );
    this.pending = { promise, timer, settle };
    return promise;
  }

  stop(): void {
    this.stopped = true;
    this.stopping.abort(clientClosedError(this.options.endpoint));
    if (this.pending !== undefined) {
      stopTimer(this.options.clock, this.pending.timer);
      this.pending.settle();
      this.pending = undefined;
    }
    stopTimer(this.options.clock, this.periodic);
  }

  /** A refresh now (the one in flight, if any); rejects when no node answered. */
  refresh(): Promise<void> {
    this.refreshing ??= this.readFromAny().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async readFromAny(): Promise<void> {
    const clock = this.options.clock;
    this.lastStartedAt = clock.now();
    const tried: string[] = [];
    let lastError: unknown;
    for (const candidate of this.order.order(this.candidates(), this.lastStartedAt)) {
      if (this.stopped) return;
      tried.push(`${candidate.endpoint.host}:${candidate.endpoint.port}`);
      try {
        const topology = await readTopology(candidate.endpoint, candidate.blankHost, this.reading);
        this.order.answered(candidate.endpoint);
        if (this.stopped) return;
        this.topology = topology;
        this.onChange(topology);
        return;
      } catch (error) {
        this.order.failed(candidate.endpoint, clock.now());
        lastError = error;
      }
    }
    throw new RespireConnectionError(
      `no Redis Cluster node answered with the topology (tried ${tried.join(', ')})${
        lastError instanceof Error ? `: ${lastError.message}` : ''
      }`,
      { endpoint: this.options.endpoint, cause: lastError, written: false },
    );
  }

  /** Known online primaries, then replicas, then the seeds; each address once. */
  private candidates(): Candidate[] {
    const seen = new Set<string>();
    const candidates: Candidate[] = [];
    const add = (endpoint: RespireEndpoint, blankHost: string): void => {
      const key = `${endpoint.host}:${endpoint.port}`;
      if (seen.has(key)) return;
      seen.add(key);
      candidates.push({ endpoint, blankHost });
    };
    const nodes = this.topology?.nodes ?? [];
    for (const role of ['primary', 'replica'] as const) {
      for (const node of nodes) {
        if (node.role === role && node.health === 'online') add(node.endpoint, node.announced.host);
      }
    }
    for (const seed of this.options.endpoints) add(seed, seed.host);
    return candidates;
  }

  /** Every refreshInterval, ±10% so that many clients do not ask in step; 0 turns it off. */
  private schedulePeriodic(): void {
    const interval = this.options.cluster.refreshInterval;
    if (interval === 0 || this.stopped) return;
    const delay = Math.round(interval * (0.9 + 0.2 * this.options.random.random()));
    this.periodic = startTimer(
      this.options.clock,
      () => {
        this.refresh()
          .catch(ignore)
          .finally(() => this.schedulePeriodic());
      },
      delay,
      true,
    );
  }
}

function ignore(): void {}
