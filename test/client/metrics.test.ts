// ClientTelemetry and the meter/metricGroups options on their own (seed 000 "Circuit metrics",
// API.md "Metrics"): instruments, units, tags, the groups that select them, zero instruments
// without a meter, error.type naming and its bound, and a meter that throws. The client's send
// paths driving these hooks against a real server are in metrics-client.test.ts.
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { ClientTelemetry, Instruments, resolveMetricOptions } from '../../src/client/metrics.js';
import { MAX_ERROR_TYPES } from '../../src/client/metrics-tags.js';
import {
  RespireCircuitOpenError,
  RespireConfigurationError,
  RespireConnectionError,
  type RespireMeter,
  RespireMetricGroups,
  type RespireOptions,
  RespireServerError,
  RespireTimeoutError,
} from '../../src/index.js';

interface Measurement {
  instrument: string;
  value: number;
  attributes: Record<string, unknown>;
}

/** A meter that records every instrument it creates and every measurement, in order. */
class RecordingMeter implements RespireMeter {
  readonly created: { name: string; unit: string | undefined; description: string | undefined }[] = [];
  readonly measurements: Measurement[] = [];
  readonly attributeObjects: object[] = [];

  createCounter(name: string, options?: { unit?: string; description?: string }) {
    this.created.push({ name, unit: options?.unit, description: options?.description });
    return {
      add: (value: number, attributes?: Readonly<Record<string, string | number>>) => {
        this.attributeObjects.push(attributes ?? {});
        this.measurements.push({ instrument: name, value, attributes: { ...attributes } });
      },
    };
  }
}

const LIBRARY = 'Respire:0.1.0';
const local = { host: '127.0.0.1', port: 7001 };
const defaultPort = { host: 'cache.internal', port: 6379 };

function telemetry(meter: RespireMeter | null, groups?: unknown): ClientTelemetry {
  return new ClientTelemetry(resolveMetricOptions(meter, groups));
}

describe('ClientTelemetry with a meter', () => {
  it('reports a transition with from/to states and the common tags', () => {
    const meter = new RecordingMeter();
    const t = telemetry(meter);
    t.circuitTransition(local, 'closed', 'open');
    t.circuitTransition(local, 'open', 'half_open');
    t.circuitTransition(local, 'half_open', 'closed');
    expect(meter.created).toEqual([
      { name: 'respire.circuit.transitions', unit: '{transition}', description: expect.any(String) },
    ]);
    const common = {
      'server.address': '127.0.0.1',
      'server.port': 7001,
      'db.system.name': 'redis',
      'redis.client.library': LIBRARY,
    };
    expect(meter.measurements).toEqual(
      [
        ['closed', 'open'],
        ['open', 'half_open'],
        ['half_open', 'closed'],
      ].map(([from, to]) => ({
        instrument: 'respire.circuit.transitions',
        value: 1,
        attributes: { ...common, 'respire.circuit.state.from': from, 'respire.circuit.state.to': to },
      })),
    );
  });

  it('reports rejections, errors and retries, each with its unit', () => {
    const meter = new RecordingMeter();
    const t = telemetry(meter);
    t.circuitRejection(local);
    t.commandError(local, new RespireCircuitOpenError(local, 100));
    t.commandRetry(local);
    expect(meter.created.map(({ name, unit }) => [name, unit])).toEqual([
      ['respire.circuit.rejections', '{operation}'],
      ['redis.client.errors', '{error}'],
      ['respire.command.retries', '{retry}'],
    ]);
    expect(meter.measurements.map((m) => [m.instrument, m.value, m.attributes['error.type']])).toEqual([
      ['respire.circuit.rejections', 1, undefined],
      ['redis.client.errors', 1, 'RespireCircuitOpenError'],
      ['respire.command.retries', 1, undefined],
    ]);
    for (const { attributes } of meter.measurements) {
      expect(attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': 7001 });
    }
  });

  it('omits server.port for 6379', () => {
    const meter = new RecordingMeter();
    telemetry(meter).circuitRejection(defaultPort);
    expect(meter.measurements[0]!.attributes).toEqual({
      'server.address': 'cache.internal',
      'db.system.name': 'redis',
      'redis.client.library': LIBRARY,
    });
  });

  it('creates each instrument once and reuses frozen tag objects per endpoint', () => {
    const meter = new RecordingMeter();
    const t = telemetry(meter);
    for (let i = 0; i < 3; i++) {
      t.circuitRejection(local);
      t.circuitRejection({ ...local }); // another object for the same host:port
      t.circuitTransition(local, 'closed', 'open');
      t.commandError(local, new RespireServerError('WRONGTYPE Operation against a key'));
    }
    expect(meter.created).toHaveLength(3);
    const [rejection, sameKey, transition, error] = meter.attributeObjects;
    expect(sameKey).toBe(rejection);
    for (const [index, tags] of meter.attributeObjects.entries()) {
      expect(tags).toBe([rejection, sameKey, transition, error][index % 4]);
      expect(Object.isFrozen(tags)).toBe(true);
    }
  });

  it('names errors by code or class, never by message, and bounds the names per endpoint', () => {
    const meter = new RecordingMeter();
    const t = telemetry(meter, [RespireMetricGroups.Commands]);
    const secret = 'user:1234:session';
    const errors: unknown[] = [
      new RespireServerError(`WRONGTYPE Operation against ${secret}`),
      RespireServerError.fromReply(`NOSCRIPT No matching script for ${secret}`),
      new RespireServerError(`${secret} raised by a script`),
      new RespireTimeoutError(`no reply to GET ${secret}`, 'response'),
      new RespireConnectionError(`lost ${secret}`),
      new DOMException(`aborted ${secret}`, 'AbortError'),
      secret, // an abort reason that is not an Error
    ];
    for (const error of errors) t.commandError(local, error);
    expect(meter.measurements.map((m) => m.attributes['error.type'])).toEqual([
      'WRONGTYPE',
      'NOSCRIPT',
      'RespireServerError', // not a code Redis sends: named by its class
      'RespireTimeoutError',
      'RespireConnectionError',
      'AbortError',
      '_OTHER',
    ]);
    expect(JSON.stringify(meter.measurements)).not.toContain('1234');

    for (let i = 0; i < 2 * MAX_ERROR_TYPES; i++) {
      t.commandError(local, Object.assign(new Error('x'), { name: `E${i}` }));
    }
    const types = new Set(meter.measurements.map((m) => m.attributes['error.type']));
    expect(types.size).toBe(MAX_ERROR_TYPES);
    expect(types.has('_OTHER')).toBe(true);
  });

  it('creates only the instruments of the selected groups', () => {
    const meter = new RecordingMeter();
    const t = telemetry(meter, [RespireMetricGroups.Resiliency]);
    t.commandError(local, new Error('x'));
    t.commandRetry(local);
    expect(meter.created).toEqual([]);
    expect([t.circuitMetrics, t.errorMetrics, t.retryMetrics]).toEqual([true, false, false]);
    t.circuitRejection(local);
    expect(meter.created.map((c) => c.name)).toEqual(['respire.circuit.rejections']);

    const none = new RecordingMeter();
    const quiet = telemetry(none, []);
    quiet.circuitTransition(local, 'closed', 'open');
    quiet.circuitRejection(local);
    expect(none.created).toEqual([]);
  });
});

describe('ClientTelemetry without a meter', () => {
  it('creates nothing and reports nothing, whatever the groups', () => {
    const t = telemetry(null, Object.values(RespireMetricGroups));
    expect([t.circuitMetrics, t.errorMetrics, t.retryMetrics]).toEqual([false, false, false]);
    expect([ClientTelemetry.disabled.circuitMetrics, ClientTelemetry.disabled.errorMetrics]).toEqual([
      false,
      false,
    ]);
    // No meter to call: these only must not throw.
    t.circuitTransition(local, 'closed', 'open');
    t.circuitRejection(local);
    t.commandError(local, new Error('x'));
    t.commandRetry(local);
  });
});

describe('a meter that throws', () => {
  afterEach(() => vi.restoreAllMocks());

  it('never breaks the caller and warns once', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const failing: RespireMeter = {
      createCounter: (name) =>
        name === Instruments.rejections.name
          ? {
              add: () => {
                throw new Error('exporter down');
              },
            }
          : (() => {
              throw new Error('no instruments');
            })(),
    };
    const t = telemetry(failing);
    for (let i = 0; i < 3; i++) {
      t.circuitRejection(local);
      t.circuitTransition(local, 'closed', 'open');
      t.commandRetry(local);
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain('exporter down');
  });
});

describe('meter and metricGroups options', () => {
  it('default to every group when a meter is given, and to none without one', () => {
    const meter = new RecordingMeter();
    expect([...resolveMetricOptions(meter, undefined).metricGroups].sort()).toEqual([
      'cache',
      'commands',
      'resiliency',
      'retries',
    ]);
    expect(resolveMetricOptions(undefined, ['retries'])).toEqual({ meter: null, metricGroups: new Set() });
    expect(Object.isFrozen(RespireMetricGroups)).toBe(true);
  });

  it.each([
    ['meter', { createHistogram() {} }, undefined, 'meter'],
    ['meter', 'otel', undefined, 'meter'],
    ['metricGroups', new RecordingMeter(), 'resiliency', 'metricGroups'],
    ['metricGroups', new RecordingMeter(), ['resiliency', 'Resiliency'], 'metricGroups[1]'],
  ])('reject an invalid %s naming %s', (_, meter, groups, option) => {
    const error = (() => {
      try {
        resolveMetricOptions(meter, groups);
      } catch (caught) {
        return caught;
      }
      throw new Error('accepted');
    })();
    expect(error).toBeInstanceOf(RespireConfigurationError);
    expect((error as RespireConfigurationError).option).toBe(option);
  });

  it('accept an OpenTelemetry Meter by its shape', () => {
    // The shapes of @opentelemetry/api 1.x that matter here, restated so no dependency is needed.
    type Attributes = Record<string, string | number | boolean | undefined | (string | number)[]>;
    interface OtelCounter<A extends Attributes = Attributes> {
      add(value: number, attributes?: A, context?: object): void;
    }
    interface OtelMeter {
      createCounter<A extends Attributes = Attributes>(
        name: string,
        options?: { description?: string; unit?: string; valueType?: number },
      ): OtelCounter<A>;
      createHistogram(name: string): { record(value: number): void };
    }
    expectTypeOf<OtelMeter>().toExtend<RespireMeter>();
    expectTypeOf<{ meter: OtelMeter }>().toExtend<RespireOptions>();
  });
});
