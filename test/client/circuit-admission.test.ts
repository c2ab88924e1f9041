// The circuit on the client's send paths (issue 5 "Admission and outcomes", seed 000), against a
// real redis-server behind the fault proxy: checked right before sending, open rejects with
// nothing sent, health classified once (health.ts), outcomes that record nothing free a probe slot.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import {
  RespireClient,
  RespireConfigurationError,
  RespireConnectionError,
  RespireServerError,
  RespireTimeoutError,
} from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';
import {
  expectRejected,
  nextTransition,
  outcome,
  recordTransitions,
  takeDown,
  tripByRefusal,
  tripUntilProbeDue,
  tripWithReset,
  untilProbeDue,
  useCircuitRigs,
} from './circuit-kit.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);

describe('circuit admission', () => {
  it('has no circuit, and no gate, when circuitBreaker is null or absent', async () => {
    for (const circuitBreaker of [null, undefined]) {
      const { client } = await rigs.open({ circuitBreaker });
      expect(client.circuit).toBeUndefined();
      expect(await client.ping()).toBe('PONG');
    }
  });

  it('outage in miniature: black hole, trip, fail fast, heal, probes, closed, traffic flows', async () => {
    const rig = await rigs.open({
      commandTimeout: 200,
      circuitBreaker: { minimumFailureCount: 3, openDuration: 300, halfOpenProbeCount: 2 },
    });
    const { client, proxy, circuit } = rig;
    const transitions = recordTransitions(circuit);
    await client.set('circuit:outage', 'v');
    await proxy.setMode('blackhole');
    const opened = nextTransition(circuit, 'open');
    const lost = await Promise.all([1, 2, 3].map((i) => outcome(client.get(`circuit:outage:${i}`))));
    await opened;
    expect(lost[0]!.error).toBeInstanceOf(RespireTimeoutError);
    // The others time out at their own deadlines, or fail with the connection replaced then.
    for (const { error } of lost.slice(1)) {
      expect(error).toSatisfy((e) => e instanceof RespireTimeoutError || e instanceof RespireConnectionError);
      expect(error).toMatchObject({ written: true });
    }

    const started = performance.now();
    const fast = await Promise.all(Array.from({ length: 20 }, () => outcome(client.get('circuit:outage'))));
    expect(performance.now() - started).toBeLessThan(100);
    for (const { error } of fast) expectRejected(error, rig, 300);

    await proxy.setMode('pass');
    await untilProbeDue(circuit);
    const closed = nextTransition(circuit, 'closed');
    // Two probe slots: the third command of the round is rejected with retryAfter null.
    const round = await Promise.all([1, 2, 3].map(() => outcome(client.get('circuit:outage'))));
    expect(round.slice(0, 2)).toEqual([{ value: 'v' }, { value: 'v' }]);
    expectRejected(round[2]!.error, rig, null);
    await closed;
    const flowing = await Promise.all(Array.from({ length: 10 }, () => client.get('circuit:outage')));
    expect(flowing).toEqual(Array(10).fill('v'));
    expect(transitions).toEqual(['closed>open', 'open>half_open', 'half_open>closed']);
  });

  it('counts every Redis error reply as a success and leaves the caller its error', async () => {
    const { client, circuit } = await rigs.open({ circuitBreaker: { minimumFailureCount: 1 } });
    await client.set('circuit:string', 'text');
    const errors = await Promise.all([
      outcome(client.lpush('circuit:string', 'x')),
      outcome(client.send(['NO-SUCH-COMMAND'])),
      outcome(client.evalsha('0'.repeat(40))),
    ]);
    expect(errors.map(({ error }) => (error as RespireServerError).code)).toEqual([
      'WRONGTYPE',
      'ERR',
      'NOSCRIPT',
    ]);
    for (const { error } of errors) expect(error).toBeInstanceOf(RespireServerError);
    expect(circuit.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 4 });
  });

  it('records nothing for validation and serializer errors, or a cancellation before or after the write', async () => {
    const { client, proxy, circuit } = await rigs.open({ circuitBreaker: { minimumFailureCount: 1 } });
    const invalid = await outcome(client.get('circuit:k', { timeout: -1 }));
    expect(invalid.error).toBeInstanceOf(RespireConfigurationError);
    const unencodable = await outcome(client.send(['SET', 'circuit:k', Number.NaN]));
    expect(unencodable.error).toBeInstanceOf(TypeError);
    const queued = new AbortController();
    const dropped = outcome(client.get('circuit:k', { signal: queued.signal }));
    queued.abort(new Error('changed my mind'));
    expect((await dropped).error).toMatchObject({ message: 'changed my mind' });

    await proxy.setMode('blackhole');
    const sent = new AbortController();
    const before = proxy.bytesFromClient;
    const abandoned = outcome(client.get('circuit:k', { signal: sent.signal }));
    await proxy.waitForClientBytes(before + 1);
    sent.abort(new Error('too slow'));
    expect((await abandoned).error).toMatchObject({ message: 'too slow' });
    await proxy.setMode('pass');
    // The abandoned GET's reply arrives before PING's and is dropped: still nothing recorded for it.
    expect(await client.ping()).toBe('PONG');
    expect(circuit.snapshot()).toMatchObject({ state: 'closed', failures: 0, total: 1 });
  });

  it('frees a half-open probe slot on cancellation after the write and on a writer failure', async () => {
    const rig = await rigs.open();
    const { client, proxy, circuit } = rig;
    await tripUntilProbeDue(rig);
    await proxy.setMode('blackhole');
    const cancel = new AbortController();
    const probe = outcome(client.get('circuit:p', { signal: cancel.signal }));
    const refused = await outcome(client.get('circuit:p'));
    expectRejected(refused.error, rig, null);
    expect(circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 1 });
    cancel.abort(new Error('cancelled probe'));
    expect((await probe).error).toMatchObject({ message: 'cancelled probe' });
    expect(circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 0 });
    // A command the writer cannot encode is admitted as a probe, fails unsent and gives its slot back.
    expect((await outcome(client.send(['GET', Symbol('no') as never]))).error).toBeInstanceOf(TypeError);
    expect(circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 0, probeSuccesses: 0 });
    const closed = nextTransition(circuit, 'closed');
    const last = client.get('circuit:p');
    await proxy.setMode('pass');
    expect(await last).toBeNull();
    await closed;
  });

  it('fire-and-forget: checked, a success records nothing, a transport failure is recorded', async () => {
    const rig = await rigs.open({ circuitBreaker: { minimumFailureCount: 1, halfOpenProbeCount: 2 } });
    const { client, proxy, circuit } = rig;
    await client.set('circuit:ff', '1', { fireAndForget: true });
    expect(await client.ping()).toBe('PONG');
    expect(circuit.snapshot()).toMatchObject({ failures: 0, total: 1 });

    await proxy.setMode('blackhole');
    const before = proxy.bytesFromClient;
    await client.set('circuit:ff', '2', { fireAndForget: true });
    await proxy.waitForClientBytes(before + 1);
    const opened = nextTransition(circuit, 'open');
    await proxy.setMode('reset');
    await opened;
    await proxy.setMode('pass');
    expectRejected((await outcome(client.set('circuit:ff', '3', { fireAndForget: true }))).error, rig);

    // Half-open with two slots: the fire-and-forget probe and the GET both go out, yet only the
    // GET's reply counts, so the circuit stays half-open until a second success.
    await untilProbeDue(circuit);
    await client.set('circuit:ff', '4', { fireAndForget: true });
    expect(await client.get('circuit:ff')).toBe('4');
    expect(circuit.snapshot()).toMatchObject({ state: 'half_open', probeSuccesses: 1, probesInFlight: 0 });
    expect(await client.get('circuit:ff')).toBe('4');
    expect(circuit.state).toBe('closed');
  });

  it('a selection failure counts; while open it is rejected; on a half-open probe it reopens', async () => {
    const rig = await rigs.open({ acquireTimeout: 100 });
    const { client, proxy, circuit } = rig;
    const transitions = recordTransitions(circuit);
    await takeDown(proxy);
    const waiting = [1, 2, 3].map((i) => outcome(client.get(`circuit:sel:${i}`)));
    const [first, second, third] = await Promise.all(waiting);
    for (const failure of [first, second]) {
      expect(failure!.error).toBeInstanceOf(RespireConnectionError);
      expect((failure!.error as RespireConnectionError).written).toBe(false);
    }
    expectRejected(third!.error, rig);
    expect(transitions).toEqual(['closed>open']);
    expectRejected((await outcome(client.get('circuit:sel'))).error, rig);

    await untilProbeDue(circuit);
    const firstOpenUntil = circuit.snapshot().openUntil!;
    const reopened = nextTransition(circuit, 'open');
    expect((await outcome(client.get('circuit:sel'))).error).toBeInstanceOf(RespireConnectionError);
    await reopened;
    expect(transitions).toEqual(['closed>open', 'open>half_open', 'half_open>open']);
    expect(circuit.snapshot().openUntil!).toBeGreaterThan(firstOpenUntil);
  });

  it('past the open delay with no connection, only halfOpenProbeCount commands wait; the rest are rejected at once', async () => {
    const rig = await rigs.open({ acquireTimeout: 5_000, circuitBreaker: { halfOpenProbeCount: 2 } });
    const { client, proxy, circuit } = rig;
    await tripWithReset(rig);
    await untilProbeDue(circuit);
    // The endpoint is still down (every connection is reset): five commands arrive at once.
    const settled: number[] = [];
    const calls = [0, 1, 2, 3, 4].map((i) =>
      outcome(client.get(`circuit:nowhere:${i}`)).then((result) => {
        settled.push(i);
        return result;
      }),
    );
    const rejected = await Promise.all(calls.slice(2));
    for (const rejection of rejected) expectRejected(rejection.error, rig, null);
    expect(settled.sort()).toEqual([2, 3, 4]);
    expect(circuit.snapshot()).toMatchObject({ state: 'half_open', probesInFlight: 2 });
    // The two probes waited for a connection; when the endpoint heals they run and close it.
    const closed = nextTransition(circuit, 'closed');
    await proxy.setMode('pass');
    for (const probe of await Promise.all(calls.slice(0, 2))) expect(probe.value).toBeNull();
    await closed;
  });

  it('a command queued before the trip keeps its place and is checked when its write comes', async () => {
    const rig = await rigs.open();
    const { client, proxy, circuit } = rig;
    await takeDown(proxy);
    let settled = false;
    const queued = client.get('circuit:queued').finally(() => {
      settled = true;
    });
    // Dedicated connections cannot be opened either: two selection failures trip the circuit.
    const opened = nextTransition(circuit, 'open');
    await Promise.all([1, 2].map((i) => outcome(client.blpop(`circuit:queued:${i}`, 1))));
    await opened;
    expectRejected((await outcome(client.get('circuit:queued'))).error, rig);
    expect(settled).toBe(false);
    await untilProbeDue(circuit);
    const closed = nextTransition(circuit, 'closed');
    await proxy.setMode('pass');
    expect(await queued).toBeNull();
    await closed;
  });

  it('the subscriber connection is checked too: SUBSCRIBE is admitted, and rejected while open', async () => {
    const rig = await rigs.open();
    const { client, circuit } = rig;
    await client.subscribe('circuit:news', () => {});
    expect(circuit.snapshot()).toMatchObject({ failures: 0, total: 1, admissionsInFlight: 0 });
    await tripByRefusal(rig);
    expectRejected((await outcome(client.subscribe('circuit:other', () => {}))).error, rig);
  });

  it('views share the circuit; reconnect handshakes are not checked', async () => {
    const rig = await rigs.open({ circuitBreaker: { minimumFailureCount: 2, openDuration: 2_000 } });
    const { client, proxy, circuit } = rig;
    const view = client.withKeyPrefix('circuit:view:').withKeyPrefix('inner:');
    await view.set('k', 'v');
    expect(circuit.snapshot().total).toBe(1);
    await tripByRefusal(rig);
    expectRejected((await outcome(view.get('k'))).error, rig, 2_000);
    // The shared connection is lost while open; its reconnect handshake still goes out.
    const before = proxy.bytesToClient;
    await proxy.closeAllConnections();
    await proxy.waitUntil((p) => p.connections === 1 && p.bytesToClient > before);
    expect(circuit.state).toBe('open');
    expect(await (await rigs.direct()).get('circuit:view:inner:k')).toBe('v');
  });
});

// A client of its own, so these rejections cannot reach another test's circuit.
it('each client has its own circuit history', async () => {
  const a = await rigs.open();
  const b = await RespireClient.connect({
    endpoints: [{ host: a.proxy.host, port: a.proxy.port }],
    circuitBreaker: {},
  });
  try {
    await tripByRefusal(a);
    expect(b.circuit!.state).toBe('closed');
    expect(await b.ping()).toBe('PONG');
  } finally {
    b.destroy();
  }
});
