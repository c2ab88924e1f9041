// Regression (issue 10, defect 3): a connection the client closes itself is not an endpoint failure
// (seed 000 "Health classification": nothing is recorded for a failure the client caused). Three
// ways it was: (a) a fire-and-forget BLPOP's dedicated connection, discarded after the write;
// (b) destroy() with a GET in flight; (c) a WATCH commit the circuit refused closes the session's
// connection, failing that session's in-flight probe, which reopened the circuit.
import { expect, it } from 'vitest';
import { RespireCircuitOpenError } from '../../src/index.js';
import {
  RecordingMeter,
  recordTransitions,
  tripByRefusal,
  untilProbeDue,
  useCircuitRigs,
} from '../client/circuit-kit.js';
import { nextTurn, outcome } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const rigs = useCircuitRigs(useRedisServer());

it('(a) a fire-and-forget BLPOP whose connection is discarded records no failure', async () => {
  const { client, circuit } = await rigs.open({ circuitBreaker: { minimumFailureCount: 1 } });
  const transitions = recordTransitions(circuit);
  expect(await client.send(['BLPOP', 'closes:never', '0'], { fireAndForget: true })).toBeUndefined();
  await nextTurn();
  await nextTurn();
  expect(circuit.snapshot().failures).toBe(0);
  expect(transitions).toEqual([]);
  expect(await client.ping()).toBe('PONG');
});

it('(b) destroy() with a GET in flight reports no transition', async () => {
  const meter = new RecordingMeter();
  const { client, proxy, circuit } = await rigs.open({
    circuitBreaker: { minimumFailureCount: 1 },
    meter,
  });
  const transitions = recordTransitions(circuit);
  await proxy.setMode('blackhole');
  const before = proxy.bytesFromClient;
  const pending = outcome(client.get('closes:in-flight'));
  await proxy.waitForClientBytes(before + 1);
  client.destroy();
  expect((await pending).error).toBeDefined();
  expect(transitions).toEqual([]);
  expect(meter.of('respire.circuit.transitions')).toEqual([]);
});

it('(c) a refused WATCH commit does not fail the session probe in flight', async () => {
  const rig = await rigs.open({ circuitBreaker: { halfOpenProbeCount: 2 } });
  const { client, proxy, circuit } = rig;
  await tripByRefusal(rig);
  await untilProbeDue(circuit);
  const session = await client.watch('closes:watched'); // WATCH: the first probe, a success
  expect(circuit.state).toBe('half_open');
  const transitions = recordTransitions(circuit);
  await proxy.setMode('delay', 300, 'toClient');
  const read = outcome(session.get('closes:watched')); // the second probe, in flight
  await nextTurn();
  const tx = session.multi();
  tx.set('closes:watched', '1');
  // Every probe slot is taken: the commit is refused and the session's connection closed.
  expect((await outcome(tx.exec())).error).toBeInstanceOf(RespireCircuitOpenError);
  await read;
  expect(transitions).not.toContain('half_open>open');
  expect(circuit.state).toBe('half_open');
  expect(circuit.snapshot().probesInFlight).toBe(0);
});
