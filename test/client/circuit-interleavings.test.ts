// Connections racing for half-open probe slots (issue 5 "Tests"): the shared pipeline, dedicated
// connections (BLPOP) and WATCH sessions issue commands in an order fast-check's scheduler picks,
// against a real redis-server. A tap in front of the fault proxy sees what reaches the server side:
// never a command while the circuit is open, never more than halfOpenProbeCount in flight while it
// is half-open, and every call settles once, with a reply or a rejection that names no delay.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { RespireCircuitOpenError, RespireClient } from '../../src/index.js';
import { CommandTap } from '../kit/command-tap.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import { FAST_CIRCUIT, nextTransition, outcome, tripByRefusal, untilProbeDue } from './circuit-kit.js';
import { useTestClients } from './support.js';

const { startProxy } = useTestClients(useRedisServer());

type Call = 'get' | 'blpop' | 'watch';

/** Runs one call kind; a WATCH session reads once and ends (its UNWATCH is admitted too). */
async function run(client: RespireClient, call: Call, index: number): Promise<unknown> {
  const key = `circuit:race:${index}`;
  if (call === 'get') return client.get(key);
  if (call === 'blpop') return client.blpop(key, 0.05);
  const session = await client.watch(key);
  try {
    return await session.get(key);
  } finally {
    await session.release();
  }
}

it('never more than halfOpenProbeCount probes in flight at the server, none while open', async () => {
  const calls = fc.array(fc.constantFrom<Call>('get', 'get', 'blpop', 'watch'), {
    minLength: 2,
    maxLength: 8,
  });
  const proxy = await startProxy();
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), fc.integer({ min: 1, max: 3 }), calls, async (s, probes, kinds) => {
      const tap = await CommandTap.start({ host: proxy.host, port: proxy.port });
      const client = await RespireClient.connect({
        endpoints: [{ host: '127.0.0.1', port: tap.port }],
        circuitBreaker: { ...FAST_CIRCUIT, openDuration: 60, halfOpenProbeCount: probes },
        commandTimeout: 2_000,
        reconnect: () => 10,
      });
      tap.circuit = client.circuit!;
      try {
        const circuit = client.circuit!;
        await tripByRefusal({ client, proxy, circuit });
        // Open: every kind of call fails fast, and nothing reaches the server side.
        for (const call of ['get', 'blpop', 'watch'] as const) {
          expect((await outcome(run(client, call, 0))).error).toBeInstanceOf(RespireCircuitOpenError);
        }
        await untilProbeDue(circuit);
        // Half-open: replies lag, so probes from different connections overlap in flight.
        await proxy.setMode('delay', 10, 'toClient');
        const results = kinds.map((call, i) =>
          s.schedule(Promise.resolve(call), `${call}#${i}`).then(() => outcome(run(client, call, i))),
        );
        await s.waitAll();
        const settled = await Promise.all(results);
        await proxy.setMode('pass');

        expect(tap.arrivedWhile('open')).toEqual([]);
        expect(tap.maxInFlightHalfOpen).toBeLessThanOrEqual(probes);
        // Every probe succeeds, and successes use up the round: at most `probes` in all.
        expect(tap.arrivedWhile('half_open').length).toBeLessThanOrEqual(probes);
        for (const { error } of settled) {
          if (error === undefined) continue;
          expect(error).toBeInstanceOf(RespireCircuitOpenError);
          expect((error as RespireCircuitOpenError).retryAfter).toBeNull();
        }
        // Whatever the order, the circuit recovers: it closes once enough probes succeed.
        if (circuit.state !== 'closed') {
          const closed = nextTransition(circuit, 'closed');
          for (let i = 0; i < probes; i++) await client.ping();
          await closed;
        }
        expect(circuit.snapshot()).toMatchObject({ state: 'closed', admissionsInFlight: 0 });
      } finally {
        client.destroy();
        await tap.stop();
        await proxy.setMode('pass');
      }
    }),
    { numRuns: 12 },
  );
});
