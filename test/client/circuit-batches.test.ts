// The circuit and batches, transactions and WATCH sessions (seed 000 "Batches and transactions"),
// against a real redis-server behind the fault proxy: batch entries checked one by one when
// execution reaches them, a transaction checked once as a unit, WATCH checked as its own command.
import { describe, expect, it } from 'vitest';
import { Instruments } from '../../src/client/metrics.js';
import { RespireCircuitOpenError, RespireConnectionError, RespireServerError } from '../../src/index.js';
import { encodePipeline } from '../kit/resp-wire.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import {
  type CircuitRig,
  expectRejected,
  nextTransition,
  outcome,
  RecordingMeter,
  tripByRefusal,
  tripUntilProbeDue,
  untilProbeDue,
  useCircuitRigs,
} from './circuit-kit.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);
const REJECTIONS = Instruments.rejections.name;

async function metered(options = {}): Promise<CircuitRig & { meter: RecordingMeter }> {
  const meter = new RecordingMeter();
  return { ...(await rigs.open({ meter, ...options })), meter };
}

describe('batches', () => {
  it('an empty batch or transaction sends nothing, even while open', async () => {
    const rig = await metered();
    const { client, proxy } = rig;
    await tripByRefusal(rig);
    const sent = proxy.bytesFromClient;
    await client.batch().execute();
    expect(await client.batch().tryExecute()).toEqual([]);
    expect(await client.multi().exec()).toEqual([]);
    expect(proxy.bytesFromClient).toBe(sent);
    expect(rig.meter.total(REJECTIONS)).toBe(0);
  });

  it('checks each entry when execution reaches it: a half-open batch is partly sent', async () => {
    const rig = await metered();
    const { client, proxy, circuit, meter } = rig;
    await tripUntilProbeDue(rig);
    const closed = nextTransition(circuit, 'closed');
    const batch = client.batch();
    const set = batch.set('circuit:batch:k', '1');
    batch.get('circuit:batch:k');
    batch.incr('circuit:batch:n');
    const sent = proxy.bytesFromClient;
    const failures = await batch.tryExecute();
    // The SET took the only probe slot; the others were rejected in queue order and never retried.
    expect(await set).toBe('OK');
    expect(failures.map((failure) => failure.index)).toEqual([1, 2]);
    for (const { error } of failures) expectRejected(error, rig, null);
    await closed;
    expect(proxy.bytesFromClient - sent).toBe(encodePipeline([['SET', 'circuit:batch:k', '1']]).length);
    expect(meter.total(REJECTIONS)).toBe(2);
    expect(await (await rigs.direct()).get('circuit:batch:n')).toBeNull();
  });

  it('execute() throws the first failure in queue order once every entry has settled', async () => {
    const rig = await rigs.open();
    const { client, proxy } = rig;
    await tripUntilProbeDue(rig);
    await proxy.setMode('delay', 50, 'toClient');
    const batch = client.batch();
    let probeSettled = false;
    const probe = batch.ping().finally(() => {
      probeSettled = true;
    });
    batch.get('circuit:batch:first');
    batch.get('circuit:batch:second');
    const thrown = (await outcome(batch.execute())).error;
    expect(probeSettled).toBe(true);
    expect(await probe).toBe('PONG');
    expectRejected(thrown, rig, null);
    expect(rig.circuit.state).toBe('closed');
  });

  it('while open every entry is rejected, each one counted, nothing sent', async () => {
    const rig = await metered();
    const { client, proxy, meter } = rig;
    await tripByRefusal(rig);
    const sent = proxy.bytesFromClient;
    const batch = client.batch();
    for (let i = 0; i < 4; i++) batch.get(`circuit:batch:${i}`);
    const failures = await batch.tryExecute();
    expect(failures.map((failure) => failure.index)).toEqual([0, 1, 2, 3]);
    for (const { error } of failures) expectRejected(error, rig);
    expect(proxy.bytesFromClient).toBe(sent);
    expect(meter.total(REJECTIONS)).toBe(4);
  });
});

describe('transactions', () => {
  it('a rejection sends nothing and faults every pending result; counted once', async () => {
    const rig = await metered();
    const { client, proxy, meter } = rig;
    await tripByRefusal(rig);
    const sent = proxy.bytesFromClient;
    const tx = client.multi();
    const entries: Promise<unknown>[] = [
      tx.set('circuit:tx:k', 'v'),
      tx.get('circuit:tx:k'),
      tx.incr('circuit:tx:n'),
    ];
    const exec = await outcome(tx.exec());
    expectRejected(exec.error, rig);
    for (const entry of await Promise.all(entries.map(outcome))) expect(entry.error).toBe(exec.error);
    expect(proxy.bytesFromClient).toBe(sent);
    expect(meter.total(REJECTIONS)).toBe(1);
  });

  it('is admitted once, as MULTI, and its health is recorded once, when EXEC answers', async () => {
    const { client, circuit } = await rigs.open({ circuitBreaker: { minimumFailureCount: 1 } });
    const tx = client.multi();
    tx.set('circuit:tx:a', '1');
    tx.incr('circuit:tx:a');
    tx.get('circuit:tx:a');
    expect(await tx.exec()).toEqual(['OK', 2, '2']);
    expect(circuit.snapshot()).toMatchObject({ failures: 0, total: 1, admissionsInFlight: 0 });
    // EXECABORT is an answer: a healthy reply, the caller's error unchanged.
    const aborted = client.multi();
    aborted.send(['SET', 'circuit:tx:a']);
    const exec = await outcome(aborted.exec());
    expect((exec.error as RespireServerError).code).toBe('EXECABORT');
    expect(circuit.snapshot()).toMatchObject({
      state: 'closed',
      failures: 0,
      total: 2,
      admissionsInFlight: 0,
    });
  });

  it('a transport failure during a transaction is one failure', async () => {
    const { client, proxy, circuit } = await rigs.open({ circuitBreaker: { minimumFailureCount: 5 } });
    await proxy.setMode('blackhole');
    const tx = client.multi();
    for (let i = 0; i < 5; i++) tx.get(`circuit:tx:${i}`);
    const before = proxy.bytesFromClient;
    const exec = outcome(tx.exec());
    await proxy.waitForClientBytes(before + 1);
    await proxy.setMode('reset');
    expect((await exec).error).toBeInstanceOf(RespireConnectionError);
    expect(circuit.snapshot()).toMatchObject({
      state: 'closed',
      failures: 1,
      total: 1,
      admissionsInFlight: 0,
    });
  });

  it('as a half-open probe, its steps follow MULTI while other commands are refused', async () => {
    const rig = await rigs.open();
    const { client, circuit } = rig;
    await tripUntilProbeDue(rig);
    const closed = nextTransition(circuit, 'closed');
    const tx = client.multi();
    tx.set('circuit:tx:probe', 'p');
    tx.get('circuit:tx:probe');
    const exec = tx.exec();
    const other = await outcome(client.ping());
    expectRejected(other.error, rig, null);
    expect(await exec).toEqual(['OK', 'p']);
    await closed;
  });
});

describe('WATCH sessions', () => {
  it('WATCH is checked as its own command: no connection is opened while open', async () => {
    const rig = await metered();
    const { client, proxy, meter } = rig;
    await tripByRefusal(rig);
    const accepted = proxy.connectionsAccepted;
    expectRejected((await outcome(client.watch('circuit:watch:k'))).error, rig);
    expect(proxy.connectionsAccepted).toBe(accepted);
    expect(meter.total(REJECTIONS)).toBe(1);
  });

  it('a rejected commit sends nothing and releases the WATCH connection', async () => {
    const rig = await metered({ maxDedicatedConnections: 1, acquireTimeout: 500 });
    const { client, proxy, circuit, meter } = rig;
    const direct = await rigs.direct();
    await direct.set('circuit:watch:k', 'before');
    const session = await client.watch('circuit:watch:k');
    // Trip on the shared connection only: two GETs time out in a black hole.
    await proxy.setMode('blackhole');
    const opened = nextTransition(circuit, 'open');
    await Promise.all([1, 2].map((i) => outcome(client.get(`circuit:watch:${i}`, { timeout: 50 }))));
    await opened;
    await proxy.setMode('pass');
    const tx = session.multi();
    const set = tx.set('circuit:watch:k', 'after');
    const exec = await outcome(tx.exec());
    expect(exec.error).toBeInstanceOf(RespireCircuitOpenError);
    expect((await outcome(set)).error).toBe(exec.error);
    expect(session.active).toBe(false);
    // Counted once: the WATCH is dropped by closing the connection, not by an UNWATCH refused too.
    expect(meter.total(REJECTIONS)).toBe(1);
    // The only dedicated connection is free again (a held one would make this wait fail after
    // acquireTimeout): once probes are due, a new session gets one, and its WATCH closes the circuit.
    await untilProbeDue(circuit);
    const next = await client.watch('circuit:watch:k');
    expect(circuit.state).toBe('closed');
    await next.release();
    expect(await direct.get('circuit:watch:k')).toBe('before');
  });

  it('a WATCH conflict (EXEC null) and a Redis error in a session are healthy replies', async () => {
    const { client, circuit } = await rigs.open({ circuitBreaker: { minimumFailureCount: 1 } });
    const direct = await rigs.direct();
    const session = await client.watch('circuit:watch:c');
    expect((await outcome(session.send(['NO-SUCH-COMMAND']))).error).toBeInstanceOf(RespireServerError);
    await direct.set('circuit:watch:c', 'changed');
    const tx = session.multi();
    tx.set('circuit:watch:c', 'mine');
    expect(await tx.exec()).toBeNull();
    expect(circuit.snapshot()).toMatchObject({
      state: 'closed',
      failures: 0,
      total: 3,
      admissionsInFlight: 0,
    });
  });
});
