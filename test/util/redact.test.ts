// Redaction of credentials in echoed option values (src/util/redact.ts): what is hidden, that a
// value with nothing to hide keeps its identity, and that odd objects (cycles, throwing getters,
// deep nesting) are shown as redacted rather than searched forever or crashing the error.
import { describe, expect, it } from 'vitest';
import { REDACTED, redactOption, redactUrl, redactUserInfo } from '../../src/util/redact.js';

describe('redactOption', () => {
  it('hides a credential option whole, whatever its type', () => {
    for (const path of [
      'password',
      'username',
      'sentinel.password',
      'tls.key',
      'tls.passphrase',
      'tls.pfx',
    ]) {
      expect(redactOption(path, 'x')).toBe(REDACTED);
      expect(redactOption(path, 42)).toBe(REDACTED);
      expect(redactOption(path, Buffer.from('x'))).toBe(REDACTED);
    }
    expect(redactOption('password', undefined)).toBeUndefined();
  });

  it('keeps a value with nothing to hide, by identity', () => {
    const object = { host: 'h', port: 1, nested: [{ a: 1 }] };
    expect(redactOption('endpoints[0]', object)).toBe(object);
    expect(redactOption('connectTimeout', -1)).toBe(-1);
    expect(redactOption('clientName', 'app 1')).toBe('app 1');
  });

  it('copies a value with credentials inside, leaving the original alone', () => {
    const original = { serviceName: 'm', endpoints: ['u:p@h:1', 'h:2'], auth: { password: 'p' } };
    expect(redactOption('sentinel', original)).toEqual({
      serviceName: 'm',
      endpoints: [`${REDACTED}@h:1`, 'h:2'],
      auth: REDACTED,
    });
    expect(original.auth.password).toBe('p');
  });

  it('shows cycles, throwing getters and deep nesting as redacted', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(redactOption('x', cyclic)).toEqual({ a: 1, self: REDACTED });
    const throwing = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(redactOption('x', throwing)).toBe(REDACTED);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20; i++) deep = { next: deep };
    expect(JSON.stringify(redactOption('x', deep))).toContain(REDACTED);
  });
});

describe('redactUserInfo', () => {
  it('replaces everything up to the last @, keeping the scheme', () => {
    expect(redactUserInfo('redis://u:p@h:6379/0')).toBe(`redis://${REDACTED}@h:6379/0`);
    expect(redactUserInfo('rediss://:p/q@r@h')).toBe(`rediss://${REDACTED}@h`);
    expect(redactUserInfo(':p@h:1')).toBe(`${REDACTED}@h:1`);
    expect(redactUserInfo('h:6379')).toBe('h:6379');
  });
});

describe('redactUrl', () => {
  it('replaces the user info, and the query or fragment of a URL', () => {
    expect(redactUrl('redis://u:p@h:6379/0?password=x')).toBe(`redis://${REDACTED}@h:6379/0?${REDACTED}`);
    expect(redactUrl('redis://h?a=1#b')).toBe(`redis://h?${REDACTED}`);
    expect(redactUrl('rediss://h/1#x')).toBe(`rediss://h/1#${REDACTED}`);
    expect(redactUrl('redis://h:6379/2')).toBe('redis://h:6379/2');
  });

  it('leaves a question mark alone in text that is not a URL', () => {
    expect(redactUrl('who?')).toBe('who?');
    expect(redactUrl(':p@h:1')).toBe(`${REDACTED}@h:1`);
  });
});
