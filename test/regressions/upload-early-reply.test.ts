// setFromStream (issue 13 "Streamed values"): Redis may answer before the value is sent, as it does
// for a length above its `proto-max-bulk-len` (512 MiB by default): an error reply, then it closes
// the connection. That reply is the upload's answer (the caller's length was refused), so the
// caller gets the server's error, and the circuit records a reply, not a lost connection (seed
// 000: an error reply is a healthy reply).
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/index.js';
import { outcome, useCircuitRigs } from '../client/circuit-kit.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const rigs = useCircuitRigs(server);

describe('an upload answered before its value is sent', () => {
  it('rejects with the server error reply and records no failure', async () => {
    const { client, circuit } = await rigs.open();
    const stop = new AbortController();
    async function* oneByteThenWait(): AsyncGenerator<Buffer> {
      yield Buffer.from('x');
      // The rest would come slowly; the test ends it once the upload settled.
      await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
    }
    const length = 600 * 1024 * 1024;
    const { error } = await outcome(client.setFromStream('upload:huge', oneByteThenWait(), { length }));
    stop.abort();
    expect(error).toBeInstanceOf(RespireServerError);
    expect((error as Error).message).toMatch(/invalid bulk length/);
    expect(circuit.snapshot().failures).toBe(0);
    expect(await client.exists('upload:huge')).toBe(0);
  });
});
