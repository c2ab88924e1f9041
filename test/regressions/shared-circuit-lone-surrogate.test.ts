// A SharedCircuitRegistry matches endpoint keys by their UTF-8 bytes, and a lone surrogate encodes
// as U+FFFD: two different keys with lone surrogates found one slot, so tripping one endpoint
// opened the other (issue 15: two endpoints never share a slot). Such a key is now refused.
import { describe, expect, it } from 'vitest';
import { CircuitOutcome, RespireConfigurationError, SharedCircuitRegistry } from '../../src/breaker/index.js';
import { fakeClock } from '../../src/breaker/testing/index.js';

describe('shared registry keys with lone surrogates', () => {
  it('never gives two keys one slot: each is refused or has its own circuit', () => {
    const registry = new SharedCircuitRegistry({ minimumFailureCount: 1 }, fakeClock());
    const circuitOrRefusal = (key: string) => {
      try {
        return registry.circuit(key);
      } catch (error) {
        expect(error).toBeInstanceOf(RespireConfigurationError);
        expect((error as RespireConfigurationError).message).toContain('endpoint');
        return null;
      }
    };
    const first = circuitOrRefusal('\uD800:6379');
    if (first !== null) first.complete(first.tryAdmit(), CircuitOutcome.Failure);
    const second = circuitOrRefusal('\uD801:6379');
    expect(second === null || second.state === 'closed').toBe(true);
    expect(registry.size).toBe((first === null ? 0 : 1) + (second === null ? 0 : 1));
  });

  it('still takes well-formed non-ASCII keys, surrogate pairs included', () => {
    const registry = new SharedCircuitRegistry({ minimumFailureCount: 1 }, fakeClock());
    const emoji = registry.circuit('\u{1F600}.example:6379');
    emoji.complete(emoji.tryAdmit(), CircuitOutcome.Failure);
    expect(registry.circuit('\u00E9t\u00E9.example:6379').state).toBe('closed');
    expect(registry.circuit('\u{1F600}.example:6379').state).toBe('open');
  });
});
