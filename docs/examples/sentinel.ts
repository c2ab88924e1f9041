// docs/examples/sentinel.ts (sentinel.md): a client that finds the primary through the sentinels and follows failovers.
import { RespireClient } from '../../src/index.js';

export async function main(sentinels: { host: string; port: number }[], serviceName: string) {
  await using redis = await RespireClient.connect({
    sentinel: { serviceName, endpoints: sentinels },
    readFrom: 'primary',
    circuitBreaker: { openDuration: 2_000 },
  });
  await redis.set('greeting', 'hello from the primary');
  const greeting = await redis.get('greeting');
  const role = await redis.send(['ROLE']); // ['master', …]: commands go to the primary
  return { greeting, role: Array.isArray(role) ? role[0] : role };
}
