// classifyClusterError: MOVED and ASK with slot and target (as 7.0.15 writes them, empty and `?`
// hosts, IPv6 with and without brackets, addressMap), TRYAGAIN and CLUSTERDOWN, and ordinary errors.
import { describe, expect, it } from 'vitest';
import { classifyClusterError } from '../../src/cluster/redirect.js';
import { RespireServerError } from '../../src/errors.js';

const ANSWERED_BY = { blankHost: '10.0.0.5' };
const classify = (message: string, context = ANSWERED_BY) =>
  classifyClusterError(RespireServerError.fromReply(message), context);
const target = (message: string) => {
  const redirect = classify(message);
  return redirect !== undefined && 'target' in redirect ? redirect.target?.key : 'no target field';
};

describe('classifyClusterError', () => {
  it('reads MOVED and ASK with their slot and target', () => {
    expect(classify('MOVED 3999 127.0.0.1:6381')).toEqual({
      kind: 'moved',
      slot: 3999,
      target: {
        endpoint: { host: '127.0.0.1', port: 6381 },
        key: '127.0.0.1:6381',
        announced: { host: '127.0.0.1', port: 6381 },
      },
    });
    expect(classify('ASK 0 127.0.0.1:6381')).toMatchObject({
      kind: 'ask',
      slot: 0,
      target: { key: '127.0.0.1:6381' },
    });
    expect(classify('MOVED 16383 redis-1.example:7000')).toMatchObject({
      slot: 16383,
      target: { key: 'redis-1.example:7000' },
    });
  });

  it('reads an empty host (7.0+) as the host of the node that answered', () => {
    // Observed on 7.0.15 with cluster-preferred-endpoint-type unknown-endpoint: `MOVED 12182 :27103`.
    expect(target('MOVED 12182 :27103')).toBe('10.0.0.5:27103');
  });

  it('reads IPv6 hosts, unbracketed as Redis writes them and bracketed', () => {
    expect(target('MOVED 1 ::1:6380')).toBe('[::1]:6380');
    expect(target('ASK 1 [::1]:6380')).toBe('[::1]:6380');
    expect(target('MOVED 1 fe80::1:2:7000')).toBe('[fe80::1:2]:7000');
  });

  it('gives no target where the server named no usable address, so the router refreshes', () => {
    // Observed on 7.0.15 with hostname preferred and none announced: `MOVED 12182 ?:27103`.
    for (const message of [
      'MOVED 12182 ?:27103',
      'MOVED 5 127.0.0.1:0',
      'MOVED 5 127.0.0.1:70000',
      'MOVED 5 127.0.0.1',
      'MOVED 5 127.0.0.1:x',
      'MOVED 5',
    ]) {
      expect(classify(message), message).toMatchObject({ kind: 'moved', target: null });
    }
  });

  it('applies addressMap to targets, blank hosts after they take the answering host', () => {
    const seen: unknown[] = [];
    const context = {
      blankHost: '10.0.0.5',
      addressMap: (endpoint: { host: string; port: number }) => {
        seen.push(endpoint);
        return { host: 'proxy.local', port: endpoint.port + 1 };
      },
    };
    expect(classify('MOVED 7 :7000', context)).toMatchObject({
      target: {
        endpoint: { host: 'proxy.local', port: 7001 },
        key: 'proxy.local:7001',
        announced: { host: '10.0.0.5', port: 7000 },
      },
    });
    expect(seen).toEqual([{ host: '10.0.0.5', port: 7000 }]);
  });

  it('classifies TRYAGAIN and CLUSTERDOWN in all their 7.0 wordings', () => {
    expect(classify('TRYAGAIN Multiple keys request during rehashing of slot')).toEqual({ kind: 'tryagain' });
    for (const message of [
      'CLUSTERDOWN The cluster is down',
      'CLUSTERDOWN Hash slot not served',
      'CLUSTERDOWN The cluster is down and only accepts read commands',
    ]) {
      expect(classify(message), message).toEqual({ kind: 'clusterdown' });
    }
  });

  it('leaves ordinary errors, and redirects whose slot cannot be read, to the caller', () => {
    for (const message of [
      'ERR unknown command',
      'WRONGTYPE Operation against a key',
      'MOVEDX 1 h:1',
      'MOVED',
      'MOVED abc h:1',
      'MOVED 16384 h:1',
      'MOVED 123456 h:1',
      'CROSSSLOT Keys in request',
    ]) {
      expect(classify(message), message).toBeUndefined();
    }
  });
});
