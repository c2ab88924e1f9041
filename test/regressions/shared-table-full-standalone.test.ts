// Issue 15 review, standalone: a client whose endpoint finds the shared circuit table full refuses
// its commands with the table's RespireConfigurationError (nothing sent), and its next command after
// a slot is freed takes that slot and runs. Another holder keeps the one slot meanwhile.
import { describe, expect, it } from 'vitest';
import { SharedCircuitRegistry } from '../../src/breaker/index.js';
import { RespireClient, RespireConfigurationError } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();

describe('a standalone client on a full shared circuit table', () => {
  it('refuses while the table is full, then takes the freed slot at its next command', async () => {
    const registry = new SharedCircuitRegistry({ maxEndpoints: 1, maxIdleHistories: 0 });
    const other = registry.acquire('127.0.0.1:1');
    const client = await RespireClient.connect({
      endpoints: [{ host: server.host, port: server.port }],
      circuitBreaker: { shared: registry },
    });
    try {
      const refused = await client.set('full:k', 'v').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RespireConfigurationError);
      expect((refused as RespireConfigurationError).option).toBe('maxEndpoints');
      await expect(client.get('full:k')).rejects.toBeInstanceOf(RespireConfigurationError);
      other.release();
      expect(await client.get('full:k')).toBeNull(); // the refused SET never ran
      await client.set('full:k', 'v');
      expect(await client.get('full:k')).toBe('v');
    } finally {
      await client.close();
    }
  });
});
