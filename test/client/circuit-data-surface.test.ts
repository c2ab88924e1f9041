// The circuit and issue 13's data surface (seed 000: streamed GETs and uploads, hash imports,
// durability batches), against a real redis-server behind the fault proxy, with the circuit kit.
import { describe, expect, it } from 'vitest';
import { RespireCircuitOpenError, RespireError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import {
  expectRejected,
  nextTransition,
  outcome,
  recordTransitions,
  tripByRefusal,
  tripUntilProbeDue,
  untilProbeDue,
  useCircuitRigs,
} from './circuit-kit.js';
import { portsOf, recordWrites } from './write-spy.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);

const VALUE_BYTES = 8 * 1024 * 1024;

function* pieces(length: number): Generator<Buffer> {
  for (let at = 0; at < length; at += 64 * 1024)
    yield Buffer.alloc(Math.min(64 * 1024, length - at), at & 0xff);
}

describe('streamed GET', () => {
  it('destroyed before its reply ends: no outcome, and its probe slot is free again', async () => {
    const rig = await rigs.open();
    const { client, circuit } = rig;
    const direct = await rigs.direct();
    await direct.setFromStream('circuit:big', pieces(VALUE_BYTES), { length: VALUE_BYTES });
    await tripUntilProbeDue(rig);
    const transitions = recordTransitions(circuit);
    const stream = client.getStream('circuit:big');
    await new Promise((resolve) => stream.once('data', resolve));
    // The stream is the only probe: another command finds every slot taken.
    expectRejected((await outcome(client.get('circuit:other'))).error, rig, null);
    stream.destroy();
    await new Promise((resolve) => stream.once('close', resolve));
    expect(circuit.state).toBe('half_open');
    expect(circuit.snapshot().probesInFlight).toBe(0);
    // The freed slot admits the next probe, whose success closes the circuit.
    expect(await client.get('circuit:other')).toBeNull();
    expect(transitions).toEqual(['open>half_open', 'half_open>closed']);
  });

  it('cancelled after its circuit reopened: nothing in the new round, its probe slot stays taken', async () => {
    // Admitted while closed and held by its reader while the circuit opens and a half-open round
    // starts: its "no outcome" belongs to the closed round (BREAKER.md: stale admissions are
    // ignored), so it neither counts nor frees the slot another stream holds as the probe.
    const rig = await rigs.open();
    const { client, circuit } = rig;
    const direct = await rigs.direct();
    await direct.setFromStream('circuit:held', pieces(VALUE_BYTES), { length: VALUE_BYTES });
    const stale = client.getStream('circuit:held');
    await new Promise((resolve) => stale.once('data', resolve));
    stale.pause();
    await tripUntilProbeDue(rig);
    const transitions = recordTransitions(circuit);
    const probe = client.getStream('circuit:held');
    await new Promise((resolve) => probe.once('data', resolve));
    probe.pause();
    expect(circuit.state).toBe('half_open');
    const counted = circuit.snapshot().total;
    stale.destroy();
    await new Promise((resolve) => stale.once('close', resolve));
    expect(circuit.snapshot()).toMatchObject({ probesInFlight: 1, total: counted });
    expectRejected((await outcome(client.get('circuit:other'))).error, rig, null);
    probe.destroy();
    await new Promise((resolve) => probe.once('close', resolve));
    expect(await client.get('circuit:other')).toBeNull();
    expect(transitions).toEqual(['open>half_open', 'half_open>closed']);
  });

  it('read to the end records success', async () => {
    const rig = await rigs.open();
    const { client, circuit } = rig;
    const direct = await rigs.direct();
    await direct.setFromStream('circuit:read', pieces(VALUE_BYTES), { length: VALUE_BYTES });
    await tripUntilProbeDue(rig);
    const closed = nextTransition(circuit, 'closed');
    let bytes = 0;
    for await (const chunk of client.getStream('circuit:read')) bytes += (chunk as Buffer).length;
    expect(bytes).toBe(VALUE_BYTES);
    await closed;
  });

  it('is rejected while open, with nothing sent and no connection opened', async () => {
    const rig = await rigs.open();
    await tripByRefusal(rig);
    const accepted = rig.proxy.connectionsAccepted;
    const failed = await outcome(rig.client.getStream('circuit:read').toArray());
    expectRejected(failed.error, rig);
    expect(rig.proxy.connectionsAccepted).toBe(accepted);
  });
});

describe('streamed upload', () => {
  it('a source failure records no outcome and frees the probe slot', async () => {
    const rig = await rigs.open();
    const { client, circuit } = rig;
    await tripUntilProbeDue(rig);
    const transitions = recordTransitions(circuit);
    async function* failing(): AsyncGenerator<Buffer> {
      yield Buffer.alloc(1024);
      throw new Error('source broke');
    }
    const failed = await outcome(client.setFromStream('circuit:up', failing(), { length: 4096 }));
    expect(failed.error).toBeInstanceOf(RespireError);
    expect(circuit.state).toBe('half_open');
    expect(circuit.snapshot().probesInFlight).toBe(0);
    expect(await client.setFromStream('circuit:up', ['ok'], { length: 2 })).toBe(true);
    expect(transitions).toEqual(['open>half_open', 'half_open>closed']);
    expect(await client.get('circuit:up')).toBe('ok');
  });
});

describe('hash import', () => {
  it('a rejection before sending keeps the session and its fieldsets; run() resumes on the same connection', async () => {
    const rig = await rigs.open();
    const { client, proxy, circuit } = rig;
    const writes = recordWrites(() => proxy.port);
    let yielded = 0;
    async function* entries(): AsyncGenerator<[string, string]> {
      for (let i = 0; i < 40; i++) {
        // Read ahead while the second chunk is prepared: the circuit opens between transactions.
        if (i === 20) await tripByRefusal(rig);
        yielded++;
        yield [`f${i}`, `v${i}`];
      }
    }
    const job = client.importHash('circuit:hash', entries(), { chunkFields: 10, replace: true });
    const rejected = await outcome(job.run());
    expectRejected(rejected.error, rig);
    expect(job.resumable).toBe(true);
    expect(job.fieldsWritten).toBe(10);
    expect(portsOf(writes, 'MULTI')).toHaveLength(1);
    await untilProbeDue(circuit);
    expect(await job.run()).toEqual({ fields: 40, transactions: 4 });
    // Every entry was read once: the rejected chunk was kept, not read again.
    expect(yielded).toBe(40);
    const ports = portsOf(writes, 'MULTI');
    expect(ports).toHaveLength(4);
    expect(new Set(ports).size).toBe(1);
    expect(await client.hlen('circuit:hash')).toBe(40);
    expect(circuit.state).toBe('closed');
  });

  it('rejected before its first transaction: nothing sent, resumable', async () => {
    const rig = await rigs.open();
    await tripByRefusal(rig);
    const job = rig.client.importHash('circuit:h2', [['a', '1']], { chunkFields: 10 });
    expect((await outcome(job.run())).error).toBeInstanceOf(RespireCircuitOpenError);
    expect(job.resumable).toBe(true);
    await untilProbeDue(rig.circuit);
    expect(await job.run()).toEqual({ fields: 1, transactions: 1 });
    expect(await rig.client.hget('circuit:h2', 'a')).toBe('1');
  });
});

describe('durability batch', () => {
  it('checks each write on its own: a rejected write prevents WAIT', async () => {
    const rig = await rigs.open();
    await tripUntilProbeDue(rig);
    const batch = rig.client.durable({ replicas: 0, timeout: 100 });
    batch.set('circuit:d1', '1');
    batch.set('circuit:d2', '2');
    const report = await batch.execute();
    // The first write took the only probe slot; the second was rejected, so no WAIT was sent.
    expect(report.writes[0]).toMatchObject({ applied: true, acknowledged: false });
    expect(report.writes[1]!.applied).toBe(false);
    expectRejected(report.writes[1]!.error, rig, null);
    expect(report.acknowledgementError?.message).toMatch(/WAIT was not sent: write 1 failed/);
    expect(await rig.client.get('circuit:d2')).toBeNull();
  });

  it('a rejected WAIT cannot undo the completed writes, and says so', async () => {
    const rig = await rigs.open({ circuitBreaker: { halfOpenProbeCount: 2 } });
    const { client } = rig;
    await tripUntilProbeDue(rig);
    const batch = client.durable({ replicas: 0, timeout: 100 });
    let other: Promise<unknown> | undefined;
    // Once the write succeeded (one probe success of two), a GET takes the other probe slot
    // before WAIT is written.
    batch.set('circuit:d3', '3').then(() => {
      other = client.get('circuit:d3');
    });
    const report = await batch.execute();
    expect(report.writes[0]).toMatchObject({ applied: true, acknowledged: false, replicas: null });
    const error = report.acknowledgementError;
    expect(error?.message).toMatch(/the 1 writes were applied and cannot be undone, but WAIT failed/);
    expectRejected(error!.cause, rig, null);
    expect(await other).toBe('3');
  });
});
