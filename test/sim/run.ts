// One seeded run of the simulation (issue 16): draws the client's options, the faults and the
// workload from the seed, runs the client's real code against the simulated network and a world of
// simulated Redis nodes (standalone, Cluster or Sentinel: worlds.ts) on the simulated clock, closes
// the client, and checks the invariants (invariants.ts). Every node's queue bounds and every
// data node's circuit are followed after every event as the run goes.
import type { ClientCircuit } from '../../src/client/node/circuit-gate.js';
import type { RespireEndpoint } from '../../src/errors.js';
import { RespireClient, RespireError, type RespireOptions } from '../../src/index.js';
import { SOCKET_FACTORY } from '../../src/transport/socket-factory.js';
import { seededRandom } from '../kit/seeded-random.js';
import { drawFaults, FaultPlan } from './faults.js';
import { watchGlobalTimers } from './global-timers.js';
import { checkRun, type Transition } from './invariants.js';
import { SimNetwork } from './network.js';
import { Scheduler } from './scheduler.js';
import { Workload } from './workload.js';
import { buildWorld, type Mode } from './worlds.js';

export interface RunOptions {
  /** Operations issued (bursts may add more). Default 40. */
  ops?: number;
  /** The world: one standalone Redis (default), a Cluster, or a Sentinel-watched primary. */
  mode?: Mode;
}

export interface RunResult {
  readonly seed: number;
  readonly mode: Mode;
  readonly violations: string[];
  /** The trace leading up to the end of the run (the broken invariant, when there is one). */
  readonly trace: string[];
  readonly ops: number;
  readonly events: number;
  readonly simulatedMs: number;
}

/** A run that has not gone quiet this long after its workload ended is itself a failure. */
const QUIET_LIMIT_MS = 120_000;

export async function runSeed(seed: number, runOptions: RunOptions = {}): Promise<RunResult> {
  const globalTimers = new Set<string>();
  const restore = watchGlobalTimers(globalTimers);
  try {
    const result = await simulate(seed, runOptions);
    for (const timer of globalTimers) result.violations.push(`the client started a global ${timer}`);
    return result;
  } finally {
    restore();
  }
}

async function simulate(seed: number, runOptions: RunOptions): Promise<RunResult> {
  const root = seededRandom(seed);
  const configRandom = root.fork();
  const faultRandom = root.fork();
  const networkRandom = root.fork();
  const workloadRandom = root.fork();
  const clientRandom = root.fork();
  const worldRandom = root.fork();
  const mode = runOptions.mode ?? 'standalone';
  const scheduler = new Scheduler();
  const horizonMs = configRandom.int(200, 3000);
  const plan = new FaultPlan(drawFaults(faultRandom, horizonMs), faultRandom, scheduler);
  const network = new SimNetwork(scheduler, networkRandom, plan);
  const world = buildWorld(mode, { scheduler, network, plan, random: worldRandom, horizonMs });

  const options = drawOptions(configRandom);
  // A node of a Cluster or Sentinel world can stay dead for seconds: reconnecting to it every
  // millisecond (minDelay 0 keeps the exponential delay at 0) only makes a run slow, not harder.
  if (mode !== 'standalone' && options.reconnect !== undefined && typeof options.reconnect === 'object')
    options.reconnect = { ...options.reconnect, minDelay: Math.max(1, options.reconnect.minDelay ?? 1) };
  scheduler.trace(
    `seed ${seed} (${mode}): ${JSON.stringify(options)} faults ${JSON.stringify(plan.settings)} ${JSON.stringify(world.settings)}`,
  );
  const violations: string[] = [];
  const result = (): RunResult => ({
    seed,
    mode,
    violations,
    trace: scheduler.recentTrace(),
    ops: workload.ops.length,
    events: scheduler.events,
    simulatedMs: scheduler.now(),
  });
  const workload = new Workload(workloadRandom, scheduler, {
    ops: runOptions.ops ?? 40,
    horizonMs,
    commandTimeout: options.commandTimeout ?? 5000,
    connectTimeout: options.connectTimeout ?? 5000,
    blocking: true,
    hashTags: mode === 'cluster',
  });

  let client: RespireClient | undefined;
  let connectError: unknown;
  const connecting = RespireClient.connect({
    ...options,
    ...world.options,
    clock: scheduler.clock,
    random: { random: () => clientRandom.next() },
    [SOCKET_FACTORY]: network.factory,
  } as RespireOptions).then(
    (connected) => {
      client = connected;
    },
    (error: unknown) => {
      connectError = error;
    },
  );
  await scheduler.run(10_000, () => client !== undefined || connectError !== undefined);
  await connecting;
  if (client === undefined) {
    // Slow links can make the handshake outlast a short connectTimeout: a run with no workload.
    if (!(connectError instanceof RespireError))
      violations.push(`connect() failed with ${String(connectError)}`);
    return result();
  }
  const transitions: Transition[] = [];
  const followCircuits = circuitFollower(client, world.dataNodes, scheduler, transitions);

  plan.active = true;
  const origin = scheduler.now();
  plan.arm(network, origin);
  world.arm(origin);
  if (configRandom.chance(0.5)) workload.subscribe(client);
  workload.schedule(client, origin);
  const bounds = queueBounds(client, options, mode);
  const check = (): void => {
    followCircuits();
    const problem = bounds();
    if (problem !== undefined && !violations.includes(problem)) violations.push(problem);
  };
  // close() or destroy(), once: after the workload, or (some runs) in the middle of it, so that
  // commands meet a closing client too.
  const connected = client;
  let closedAt = Number.POSITIVE_INFINITY;
  let closed = false;
  const destroy = configRandom.chance(0.2);
  const closeClient = (): void => {
    if (closedAt !== Number.POSITIVE_INFINITY) return;
    closedAt = scheduler.now();
    scheduler.trace(destroy ? 'client.destroy()' : 'client.close()');
    if (destroy) {
      connected.destroy();
      closed = true;
      return;
    }
    void connected.close().then(() => {
      closed = true;
    });
  };
  if (configRandom.chance(0.25)) scheduler.after(configRandom.int(0, horizonMs), 'close early', closeClient);
  const quiet = await scheduler.run(
    origin + horizonMs + QUIET_LIMIT_MS,
    () => scheduler.now() >= origin + horizonMs && workload.pending(true) === 0,
    check,
  );
  if (!quiet) {
    const stuck = workload.ops
      .filter((op) => op.outcome === undefined && op.timeoutMs > 0)
      .map((op) => `${op.id} ${op.kind}`);
    violations.push(`operations with a deadline still pending after the workload: ${stuck.join(', ')}`);
  }
  closeClient();
  const ended = await scheduler.run(
    scheduler.now() + QUIET_LIMIT_MS,
    () => closed && workload.pending() === 0,
    check,
  );
  if (!ended) violations.push(closed ? 'operations pending after close()' : 'close() never resolved');
  // A reconnect's handshake may still be under way when close() resolves; its socket is closed when
  // it completes or times out. Past that, with nothing left to happen, no socket may be open.
  await scheduler.run(scheduler.now() + QUIET_LIMIT_MS, () => false);
  for (const link of network.links) {
    if (!link.socket.destroyed) violations.push(`link ${link.id} is still open after the client closed`);
  }
  violations.push(...world.misuse().map((misuse) => `the server saw: ${misuse}`));
  violations.push(
    ...checkRun({
      ops: workload.ops,
      log: world.log,
      redirected: world.redirected ?? [],
      acquireTimeout: options.acquireTimeout ?? 5000,
      retryAttempts: options.retry?.maxAttempts ?? 1,
      jumps: plan.settings.jumps,
      closedAt,
      transitions,
      openDuration:
        options.circuitBreaker && 'openDuration' in options.circuitBreaker
          ? options.circuitBreaker.openDuration
          : undefined,
      heard: workload.heard,
    }),
  );
  return result();
}

/** The client's options for one run: short timeouts, small queues, with and without a circuit. */
function drawOptions(random: ReturnType<typeof seededRandom>): RespireOptions & { commandTimeout: number } {
  const options: RespireOptions & { commandTimeout: number } = {
    protocol: random.chance(0.5) ? 3 : 2,
    // With tls the connection reads 'data' events; without, a SlabReader (the factory gets it).
    tls: random.chance(0.5),
    connectTimeout: random.int(5, 300),
    commandTimeout: random.int(5, 500),
    acquireTimeout: random.int(1, 500),
    maxPendingCommands: random.int(1, 32),
    maxDedicatedConnections: random.int(1, 3),
    reconnect: { minDelay: random.int(0, 20), maxDelay: random.int(20, 400) },
    retry: { maxAttempts: random.int(1, 3) },
  };
  if (random.chance(0.5)) {
    options.circuitBreaker = {
      minimumFailureCount: random.int(1, 6),
      failureRateThreshold: random.pick([0.25, 0.5, 0.75]),
      samplingWindow: random.int(100, 3000),
      openDuration: random.int(10, 800),
      halfOpenProbeCount: random.int(1, 3),
    };
  }
  return options;
}

/**
 * Follows every data node's circuit as the client makes it (a Cluster or Sentinel client makes
 * them as it learns of nodes): returns the function to call after each event.
 */
function circuitFollower(
  client: RespireClient,
  nodes: readonly RespireEndpoint[],
  scheduler: Scheduler,
  transitions: Transition[],
): () => void {
  const followed = new WeakSet<ClientCircuit>();
  // One sequence per endpoint: a node made again for an endpoint (a Sentinel switch back to it)
  // has a new gate over the same breaker (circuit-gate.ts circuitRegistry), which may be open
  // already, and every gate of the endpoint reports each of its transitions: heard once.
  const last = new Map<string | undefined, Transition>();
  return () => {
    for (const node of nodes) {
      const circuit = client.circuitOf(node);
      if (circuit === undefined || followed.has(circuit)) continue;
      followed.add(circuit);
      const name = nodes.length === 1 ? undefined : `${node.host}:${node.port}`;
      circuit.onTransition((from, to) => {
        const seen = last.get(name);
        const time = scheduler.now();
        if (seen?.from === from && seen.to === to && seen.time === time) return;
        const transition = { from, to, time, circuit: name };
        last.set(name, transition);
        transitions.push(transition);
        scheduler.trace(`circuit${name === undefined ? '' : ` ${name}`} ${from} → ${to}`);
      });
    }
  };
}

/** A node's queues, read through test-only access to internals. */
interface QueueNode {
  main: { queue: { length: number }; waiters: { length: number } };
  dedicated: { size: number };
}

/** The client's nodes now: the standalone one, every Cluster node made, the Sentinel primary and replicas. */
function nodesOf(client: RespireClient, mode: Mode): () => QueueNode[] {
  const router = (client as unknown as { router: Record<string, unknown> }).router;
  return () => {
    if (mode === 'standalone') return [router.node as QueueNode];
    if (mode === 'cluster') return [...(router.nodes as { nodes: Map<string, QueueNode> }).nodes.values()];
    const replicas = [...(router.replicas as Map<string, QueueNode>).values()];
    return router.primary === undefined ? replicas : [router.primary as QueueNode, ...replicas];
  };
}

/** Reads every node's queues and says which bound is broken. */
function queueBounds(client: RespireClient, options: RespireOptions, mode: Mode): () => string | undefined {
  const nodes = nodesOf(client, mode);
  const pending = options.maxPendingCommands ?? 65536;
  const dedicated = options.maxDedicatedConnections ?? 64;
  return () => {
    for (const node of nodes()) {
      if (node.main.queue.length > pending) return `send queue holds ${node.main.queue.length} > ${pending}`;
      if (node.main.waiters.length > pending) return `waiters hold ${node.main.waiters.length} > ${pending}`;
      if (node.dedicated.size > dedicated)
        return `${node.dedicated.size} dedicated connections > ${dedicated}`;
    }
    return undefined;
  };
}
