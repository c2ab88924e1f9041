// A crash of the primary (SIGKILL) under steady write load, against a real primary, 2 replicas and
// 3 sentinels (issue 12 "Test kit and tests"; seed 000 "Sentinel"): writes resume on the new
// primary within the failover time plus a second, on the same client; every acknowledged write is
// explained by the new primary's history (lost ones only in Redis's asynchronous-replication
// window, before the move; none twice; none reported unwritten that is there); the old primary,
// back as a replica, is never written to. Then circuits across a failover: the old primary's open
// circuit does not block the new one, which has its own fresh state, as the replicas have theirs.
import { describe, expect, it } from 'vitest';
import type { CircuitState } from '../../src/breaker/index.js';
import { RespireClient, type RespireEndpoint } from '../../src/index.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { waitUntil } from '../kit/wait-until.js';

const group = useRedisSentinel();
const NAME = 'crash-writer';

function connect(options: Parameters<typeof RespireClient.connect>[0] = {}): Promise<RespireClient> {
  return RespireClient.connect({
    sentinel: { serviceName: group.serviceName, endpoints: [...group.sentinels] },
    clientName: NAME,
    connectTimeout: 1_000,
    commandTimeout: 2_000,
    acquireTimeout: 60_000,
    reconnect: () => 50,
    ...options,
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  readonly token: string;
  readonly at: number;
  readonly acked: boolean;
  /** For a failure: whether the write may have reached the server. */
  readonly maybeWritten: boolean;
  readonly code?: string | undefined;
  readonly message?: string | undefined;
}

/**
 * Bounded, so that a stall says where it is and what the writers last saw, rather than running
 * into the test's timeout (a SIGKILL failover under load may itself take a minute: the kit's waits).
 */
function waitForOutcomes(
  what: string,
  outcomes: readonly Outcome[],
  done: (all: readonly Outcome[]) => boolean,
) {
  return waitUntil(
    what,
    async () => {
      if (done(outcomes)) return true;
      const last = outcomes.at(-1);
      return `${outcomes.length} outcomes; the last: ${last === undefined ? 'none' : JSON.stringify(last)}`;
    },
    { timeoutMs: 30_000, intervalMs: 5 },
  );
}

describe('a SIGKILL of the primary under steady write load', () => {
  it('resumes writes on the new primary in time, and every acknowledged write is explained', async () => {
    const redis = await connect();
    const outcomes: Outcome[] = [];
    let running = true;
    try {
      await redis.del('crash:list');
      const writers = Array.from({ length: 8 }, async (_, writer) => {
        for (let seq = 0; running; seq++) {
          const token = `${writer}-${seq}`;
          try {
            await redis.rpush('crash:list', [token]);
            outcomes.push({ token, at: performance.now(), acked: true, maybeWritten: true });
            // Steady, not flat out: the history stays small enough to read back whole.
            await pause(10);
          } catch (error) {
            const { written, code, message } = error as {
              written?: boolean;
              code?: string;
              message?: string;
            };
            outcomes.push({
              token,
              at: performance.now(),
              acked: false,
              maybeWritten: written !== false,
              code,
              message,
            });
            await pause(5);
          }
        }
      });
      await waitForOutcomes(
        '200 acknowledged writes',
        outcomes,
        (all) => all.filter((o) => o.acked).length >= 200,
      );
      const old = group.primary;
      const killed = group.killPrimary({ untilSettled: false });
      await group.dataServer(old).waitForExit();
      const deadAt = performance.now();
      const promoted = await killed;
      const switchKnownAt = performance.now();
      await expect.poll(() => redis.endpoint.port, { timeout: 10_000 }).toBe(promoted.port);
      // Writes go on; the old primary comes back, as a replica of the new one.
      await group.restartDataNode(old);
      const target = outcomes.length + 200;
      await waitForOutcomes('200 more writes after the restart', outcomes, (all) => all.length >= target);
      running = false;
      await Promise.all(writers);

      // Writes resumed, on the same client, within the failover time plus a second.
      const resumed = outcomes.find((outcome) => outcome.acked && outcome.at > deadAt);
      expect(resumed).toBeDefined();
      expect(resumed!.at - switchKnownAt).toBeLessThanOrEqual(1_000);

      const history = (await group.command(promoted, ['LRANGE', 'crash:list', '0', '-1'])) as string[];
      const stored = new Set(history);
      expect(stored.size).toBe(history.length); // none written twice
      for (const outcome of outcomes) {
        // Reported unwritten, yet the server has it: the client lied.
        if (!outcome.maybeWritten) expect(stored.has(outcome.token)).toBe(false);
        // Acknowledged and then lost: only Redis's window, before the move.
        if (outcome.acked && !stored.has(outcome.token)) expect(outcome.at).toBeLessThan(resumed!.at);
        expect(outcome.code).not.toBe('READONLY');
      }
      // The demoted old primary never had a connection of this client.
      const clients = String(await group.command(old, ['CLIENT', 'LIST']));
      expect(clients).not.toContain(`name=${NAME}`);
    } finally {
      running = false;
      redis.destroy();
      await group.settle();
    }
  }, 300_000); // above the kit's own bounded waits (a minute each), so a stall names its step
});

describe('circuits across a failover', () => {
  it("the old primary's open circuit does not block the new one; each node has its own", async () => {
    const redis = await connect({
      readFrom: 'replicaPreferred',
      circuitBreaker: { minimumFailureCount: 2, failureRateThreshold: 0.5, openDuration: 60_000 },
    });
    try {
      await redis.set('circuit:k', 'v');
      const old = group.primary;
      const oldCircuit = redis.circuit!;
      const replicaCircuits = group.replicas.map((replica) => redis.circuitOf(replica));
      for (const circuit of replicaCircuits) expect(circuit).toBeDefined();
      const states: CircuitState[] = [];
      oldCircuit.onTransition((_from, to) => states.push(to));
      // Writes that time out on the old primary (paused, so they are in flight, not queued) open
      // its circuit; then it dies. (Writes issued after its death wait for a connection and move to
      // the new primary, seed 000 "Sentinel": sentinel-blocking-moves.test.ts.)
      await group.command(old, ['CLIENT', 'PAUSE', '5000', 'WRITE']);
      const timedOut = await Promise.allSettled(
        Array.from({ length: 4 }, (_, i) => redis.set(`circuit:${i}`, 'x', { timeout: 300 })),
      );
      expect(timedOut.every((write) => write.status === 'rejected')).toBe(true);
      expect(states).toContain('open');
      const killed = group.killPrimary({ untilSettled: false });
      await group.dataServer(old).waitForExit();
      const promoted = await killed;
      await expect.poll(() => redis.endpoint.port, { timeout: 10_000 }).toBe(promoted.port);
      // The new primary admits writes at once: its own circuit, closed, with nothing recorded.
      expect(await redis.set('circuit:k', 'w')).toBe('OK');
      const fresh = redis.circuit!;
      expect(fresh).not.toBe(oldCircuit);
      expect(fresh.state).toBe('closed');
      expect(oldCircuit.state).not.toBe('closed');
      // The replica that stayed a replica kept its own circuit, closed, through all this.
      const stayed = group.replicas.find((node) => node.port !== promoted.port && node.port !== old.port)!;
      expect(redis.circuitOf(stayed as RespireEndpoint)?.state).toBe('closed');
      expect(redis.circuitOf(stayed as RespireEndpoint)).not.toBe(fresh);
    } finally {
      redis.destroy();
      const dead = group.dataNodes.find((node) => !node.running)!;
      group.beforeNextTest(() => group.restartDataNode(dead));
    }
  }, 300_000); // above the kit's own bounded waits (a minute each), so a stall names its step
});
