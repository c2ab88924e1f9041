// Set-up shared by the maintenance tests: fake servers that accept the opt-in and can send the
// maintenance pushes Redis 7.0 cannot (PROTOCOL.md §5), and the clients on them, both closed after
// each test.
import { afterEach } from 'vitest';
import type { RespireClient } from '../../src/index.js';
import { type FakeServer, HELLO_3_REPLY, startFakeServer } from '../kit/fake-server.js';

/** Answers like a Redis that accepts the opt-in: GET k answers k; `GET silent:*` is never answered. */
export function maintenanceAnswer(args: string[]): string | undefined {
  const name = args[0]!.toUpperCase();
  if (name === 'HELLO') return HELLO_3_REPLY;
  if (name === 'CLIENT' || name === 'QUIT') return '+OK\r\n';
  if (name === 'PING') return '+PONG\r\n';
  if (name === 'GET')
    return args[1]!.startsWith('silent:') ? undefined : `$${Buffer.byteLength(args[1]!)}\r\n${args[1]}\r\n`;
  return '-ERR unexpected\r\n';
}

/** A push frame as the server writes it. */
export function push(...items: (string | number | null)[]): string {
  const parts = items.map((item) => {
    if (item === null) return '_\r\n';
    if (typeof item === 'number') return `:${item}\r\n`;
    return `$${Buffer.byteLength(item)}\r\n${item}\r\n`;
  });
  return `>${items.length}\r\n${parts.join('')}`;
}

export interface MaintenanceKit {
  /** A fake server answering `fallback` (maintenanceAnswer by default) once its scripts ran out. */
  fake(
    fallback?: (args: string[]) => string | undefined,
    script?: Parameters<typeof startFakeServer>[0]['script'],
  ): Promise<FakeServer>;
  /** Destroys `client` after the test. */
  track(client: RespireClient): RespireClient;
}

export function useMaintenanceFakes(): MaintenanceKit {
  const fakes: FakeServer[] = [];
  const clients: RespireClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  });
  return {
    async fake(fallback = maintenanceAnswer, script = []) {
      const started = await startFakeServer({ script, fallback });
      fakes.push(started);
      return started;
    },
    track(client) {
      clients.push(client);
      return client;
    },
  };
}
