// Regression (code review) of the client's circuit gate (circuit-gate.ts):
// 1. A probe admitted while it waits for a connection (checkWithoutConnection) never gets the
//    bound that admit() gives a probe with no reply deadline (boundProbe), so a `timeout: 0`
//    probe the server does not answer holds its slot for good (BREAKER.md 12: "Probes are
//    bounded by the command timeout, so a half-open circuit cannot stick").
// 2. The gate's turn-cached clock (util/turn-clock.ts) keeps one reading for a whole synchronous
//    run, however long it lasts: past the open delay, a command issued later in the same run is
//    still rejected as if no time had passed, with the retryAfter of the run's first reading.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { expect, it, vi } from 'vitest';
import { RespireCircuitOpenError, RespireConnectionError } from '../../src/index.js';
import {
  FAST_CIRCUIT,
  outcome,
  tripWithReset,
  untilProbeDue,
  useCircuitRigs,
} from '../client/circuit-kit.js';
import { inflightCount } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);

it('a timeout: 0 probe that waited for a connection frees its slot after the probe bound', async () => {
  const commandTimeout = 100; // the probe bound of a probe without a reply deadline
  const rig = await rigs.open({ commandTimeout, connectTimeout: 2_000 });
  const direct = await rigs.direct();
  await tripWithReset(rig); // open; the proxy now resets every connection
  await untilProbeDue(rig.circuit);
  const probe = outcome(rig.client.send(['SET', 'review:probe', '1'], { timeout: 0 }));
  expect(rig.circuit.state).toBe('half_open');
  expect(rig.circuit.snapshot().probesInFlight).toBe(1);
  // Writes are held by the server, reads and the handshake are not: the probe gets no reply.
  await direct.send(['CLIENT', 'PAUSE', '1500', 'WRITE']);
  try {
    await rig.proxy.setMode('pass');
    // Reconnected, and the probe written (it is the one command in flight).
    await vi.waitFor(() => expect(inflightCount(rig.client)).toBe(1), { timeout: 3_000, interval: 5 });
    // Well past the bound, counted from the write (and more so from the admission).
    await delay(commandTimeout * 4);
    expect(rig.circuit.snapshot().probesInFlight).toBe(0);
  } finally {
    await direct.send(['CLIENT', 'UNPAUSE']);
  }
  expect((await probe).value).toBe('OK');
});

it('past the open delay, a command later in the same synchronous run is not rejected as open', async () => {
  const rig = await rigs.open({ acquireTimeout: 300 });
  await tripWithReset(rig); // open for FAST_CIRCUIT.openDuration; the endpoint stays down
  const first = outcome(rig.client.get('review:first')); // reads the clock: rejected, open
  const start = performance.now();
  while (performance.now() - start < FAST_CIRCUIT.openDuration + 100) {
    // A long synchronous job of the caller's (the case the turn cache gets wrong).
  }
  const second = outcome(rig.client.get('review:second'));
  expect((await first).error).toBeInstanceOf(RespireCircuitOpenError);
  // The open delay is over: this one is a probe, which waits for a connection and fails as a
  // selection failure (RespireConnectionError), not a rejection of an open circuit.
  const error = (await second).error;
  expect(error).not.toBeInstanceOf(RespireCircuitOpenError);
  expect(error).toBeInstanceOf(RespireConnectionError);
});
