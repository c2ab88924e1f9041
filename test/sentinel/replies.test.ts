// Reading sentinel replies and event payloads in both protocols (PROTOCOL.md §3, shapes observed
// on 7.0.15): malformed replies are RespireProtocolErrors naming the node; events are read only
// from `message` frames on the channels subscribed to.
import { describe, expect, it } from 'vitest';
import { RespireProtocolError } from '../../src/errors.js';
import { readEvent } from '../../src/sentinel/events.js';
import { readInstances, readPrimaryAddress, readRole } from '../../src/sentinel/replies.js';

const SENTINEL = { host: '127.0.0.1', port: 26379 };

describe('sentinel replies', () => {
  it('reads GET-MASTER-ADDR-BY-NAME: [ip, port] with the port as a string, null when unknown', () => {
    expect(readPrimaryAddress(['127.0.0.1', '7390'], SENTINEL)).toEqual({ host: '127.0.0.1', port: 7390 });
    expect(readPrimaryAddress(null, SENTINEL)).toBeNull();
    for (const bad of [['127.0.0.1'], ['127.0.0.1', 'x'], ['', '1'], ['h', '70000'], 'OK', 3]) {
      expect(() => readPrimaryAddress(bad, SENTINEL)).toThrow(RespireProtocolError);
    }
    expect(() => readPrimaryAddress(['h', 'x'], SENTINEL)).toThrow(/127\.0\.0\.1:26379/);
  });

  it('reads SENTINEL REPLICAS as RESP3 maps or RESP2 flat arrays, leaving out down and disconnected ones', () => {
    const entry = (port: string, flags: string) => [
      'name',
      `127.0.0.1:${port}`,
      'ip',
      '127.0.0.1',
      'port',
      port,
      'flags',
      flags,
    ];
    const resp2 = [
      entry('1', 'slave'),
      entry('2', 's_down,slave,disconnected'),
      entry('3', 'slave,disconnected'),
      entry('4', 'o_down,slave'),
    ];
    const resp3 = resp2.map(
      (fields) =>
        new Map(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i]!, fields[2 * i + 1]!])),
    );
    for (const reply of [resp2, resp3]) {
      expect(readInstances('SENTINEL REPLICAS', reply, SENTINEL)).toEqual({
        usable: [{ host: '127.0.0.1', port: 1 }],
        connecting: 1,
      });
    }
    expect(() => readInstances('SENTINEL REPLICAS', 'x', SENTINEL)).toThrow(RespireProtocolError);
    expect(() => readInstances('SENTINEL REPLICAS', [['odd']], SENTINEL)).toThrow(RespireProtocolError);
  });

  it('reads ROLE', () => {
    expect(readRole(['master', 0, []], SENTINEL)).toBe('master');
    expect(readRole(['slave', '127.0.0.1', 7390, 'connected', 0], SENTINEL)).toBe('slave');
    expect(readRole(['sentinel', []], SENTINEL)).toBe('other');
    expect(() => readRole('master', SENTINEL)).toThrow(RespireProtocolError);
  });
});

describe('sentinel events', () => {
  it('reads +switch-master with the new address', () => {
    expect(readEvent(['message', '+switch-master', 'mymaster 127.0.0.1 7390 127.0.0.1 7391'])).toEqual({
      channel: '+switch-master',
      service: 'mymaster',
      to: { host: '127.0.0.1', port: 7391 },
    });
    expect(readEvent(['message', '+switch-master', 'mymaster 127.0.0.1 7390'])).toBeUndefined();
  });

  it('reads instance events: a master names itself, others name their master after @', () => {
    expect(readEvent(['message', '+odown', 'master mymaster 127.0.0.1 7390 #quorum 2/2'])).toEqual({
      channel: '+odown',
      instance: 'master',
      service: 'mymaster',
    });
    expect(
      readEvent(['message', '+sdown', 'slave 127.0.0.1:7391 127.0.0.1 7391 @ mymaster 127.0.0.1 7390']),
    ).toEqual({
      channel: '+sdown',
      instance: 'slave',
      service: 'mymaster',
    });
  });

  it('ignores other frames and channels', () => {
    expect(readEvent(['subscribe', '+sdown', 1])).toBeUndefined();
    expect(readEvent(['message', '+try-failover', 'master mymaster 127.0.0.1 7390'])).toBeUndefined();
    expect(readEvent(['message', '+sdown', 42])).toBeUndefined();
    expect(readEvent(['message', '+sdown', ''])).toBeUndefined();
  });
});
