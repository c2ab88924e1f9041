// A WATCH session (API.md "Batches, transactions, views") whose dedicated connection the server
// killed: dedicated connections are not reopened, and the session's next command failed with "the
// client is closed" while the client was open and working, which sends a caller looking for a
// close() that never happened. It now says the connection was lost (nothing sent, as before).
import { describe, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/index.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

describe('a WATCH session whose connection the server killed', () => {
  it('fails its next command saying the connection was lost, not that the client closed', async () => {
    const redis = await open();
    const session = await redis.watch('watch-lost:k');
    const id = await session.send(['CLIENT', 'ID']);
    await redis.send(['CLIENT', 'KILL', 'ID', String(id)]);
    // The kill reaches the session's socket on its own time: a command sent meanwhile fails as
    // written or unwritten, and once the loss is known every command fails unwritten.
    await expect
      .poll(async () => {
        const error = await session.get('watch-lost:k').then(
          () => undefined,
          (failure: unknown) => failure,
        );
        return error instanceof RespireConnectionError && !error.written ? error.message : undefined;
      })
      .toBeDefined();
    const error = await session.get('watch-lost:k').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as RespireConnectionError).written).toBe(false);
    expect((error as Error).message).not.toMatch(/client is closed/);
    expect((error as Error).message).toMatch(/lost/);
    expect(await redis.ping()).toBe('PONG');
  });
});
