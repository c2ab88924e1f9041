// After a MOVING, a blocking command went out on an idle dedicated connection to the endpoint the
// MOVING said goes away, so it was cut when that endpoint went (written: true, never retried).
// PROTOCOL.md §5 item 2 (redis-py): idle connections are dropped and new ones go to the announced
// endpoint; a connection busy when the MOVING came is dropped once given back. The fake server sends
// the MOVING: Redis 7.0 cannot send maintenance notifications.
import { describe, expect, it } from 'vitest';
import { RespireClient } from '../../src/index.js';
import { maintenanceAnswer, push, useMaintenanceFakes } from '../client/maintenance-support.js';
import type { FakeServer } from '../kit/fake-server.js';

const kit = useMaintenanceFakes();

/** Answers BLPOP at once with `l`/`v`, the rest as maintenanceAnswer does. */
function withBlpop(args: string[]): string | undefined {
  return args[0]!.toUpperCase() === 'BLPOP' ? '*2\r\n$1\r\nl\r\n$1\r\nv\r\n' : maintenanceAnswer(args);
}

function blpops(server: FakeServer): number {
  return server.commands.filter(([name]) => name!.toUpperCase() === 'BLPOP').length;
}

describe('a blocking command after a MOVING', () => {
  it('goes to the announced endpoint, not on an idle connection to the old one', async () => {
    const from = await kit.fake(withBlpop);
    const to = await kit.fake(withBlpop);
    const client = kit.track(
      await RespireClient.connect({ endpoints: [{ host: from.host, port: from.port }], reconnect: () => 5 }),
    );
    expect(await client.send(['BLPOP', 'l', '0'])).toEqual(['l', 'v']);
    expect(blpops(from)).toBe(1);
    const shared = await from.connection(0);
    await shared.send(push('MOVING', 1, 30, `${to.host}:${to.port}`));
    await shared.closed;
    expect(await client.send(['BLPOP', 'l', '0'])).toEqual(['l', 'v']);
    expect(blpops(to)).toBe(1);
    expect(blpops(from)).toBe(1);
  });
});
