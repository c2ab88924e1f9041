// Sentinel (issue 12): destroy() during a lookup left it running: a conversation with a
// black-holed sentinel went on until its attempt timeout (up to 1 s), its socket and timer with
// it, and the lookup settled only then. Destroying the watcher (which the client's destroy() does)
// now aborts every conversation under way: the lookup rejects at once and no socket is left.
import { afterEach, expect, it } from 'vitest';
import { RespireConnectionError } from '../../src/errors.js';
import { SENTINEL_ATTEMPT_MS } from '../../src/sentinel/exchange.js';
import { type FaultProxy, startFaultProxy } from '../kit/fault-proxy.js';
import { useRedisSentinel } from '../kit/vitest-redis.js';
import { watch } from '../sentinel/support.js';

const group = useRedisSentinel();
const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
});

it('destroy() during a lookup against black-holed sentinels settles it at once and leaves no socket', async () => {
  for (const sentinel of group.sentinels) proxies.push(await startFaultProxy({ target: sentinel }));
  const watcher = await watch(group, {
    sentinel: { endpoints: proxies.map((proxy) => `${proxy.host}:${proxy.port}`) },
    data: { tls: undefined, connectTimeout: 10_000 },
  });
  const [first] = proxies;
  for (const proxy of proxies) await proxy.setMode('blackhole');
  const accepted = first!.connectionsAccepted;
  const lookup = watcher.resolveAgain('test').then(
    () => 'resolved',
    (error: unknown) => error,
  );
  // The lookup's conversation with the first sentinel is open and gets no answer.
  await first!.waitForConnectionsAccepted(accepted + 1);
  watcher.destroy();
  // Well inside the attempt timeout the conversation would otherwise wait out.
  const outcome = await Promise.race([
    lookup,
    new Promise((resolve) => setTimeout(() => resolve('still pending'), SENTINEL_ATTEMPT_MS / 2)),
  ]);
  expect(outcome).toBeInstanceOf(RespireConnectionError);
  expect((outcome as Error).message).toContain('closed');
  // The black hole holds the client's FIN too: let it cross, and every proxied connection ends,
  // the lookup's and the event subscription's (a client socket still open would keep its own).
  for (const proxy of proxies) await proxy.setMode('pass');
  for (const proxy of proxies) await proxy.waitForConnections(0);
});
