// The ceiling of a large-value case (issue 17 "Large values"): the case's commands written as one
// buffer encoded in advance, and their replies counted by length as they arrive, never decoded,
// on one socket. Its rate is what the server, the kernel and the loopback allow with next to no
// client work, so no client can beat the fastest peer by more than this over that peer.
// (`redis-benchmark` is no such bound for 100 KiB values here: it did fewer SETs than the clients.)
import net from 'node:net';
import { asyncPasses } from '../measure.js';
import type { PreparedContender } from '../suite.js';

export async function rawCeiling(
  endpoint: { host: string; port: number },
  command: 'GET' | 'SET',
  keys: readonly string[],
  value: string,
): Promise<PreparedContender> {
  const bulk = (text: string): string => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
  const request = Buffer.from(
    keys
      .map((key) =>
        command === 'GET'
          ? `*2\r\n${bulk('GET')}${bulk(key)}`
          : `*3\r\n${bulk('SET')}${bulk(key)}${bulk(value)}`,
      )
      .join(''),
  );
  const replyBytes = keys.length * Buffer.byteLength(command === 'GET' ? bulk(value) : '+OK\r\n');
  const socket = net.connect(endpoint);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  // The replies of a pass, by length; the last bytes of each pass are checked.
  let owed = 0;
  let done: (() => void) | undefined;
  let tail: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    owed -= chunk.length;
    tail = chunk;
    if (owed < 0) socket.destroy(new Error(`the ceiling got ${-owed} bytes more than its replies`));
    else if (owed === 0) done?.();
  });
  let passes = 0;
  const pass = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      owed = replyBytes;
      done = resolve;
      socket.once('error', reject);
      socket.write(request);
    }).then(() => {
      socket.removeAllListeners('error');
      passes++;
    });
  await pass();
  const expectedTail = command === 'GET' ? `${value.slice(-8)}\r\n` : '+OK\r\n';
  if (!tail.toString('latin1').endsWith(expectedTail))
    throw new Error('the ceiling read replies it did not expect');
  return {
    runFor: asyncPasses(pass),
    units: [{ unit: 'ops/s', perPass: keys.length }],
    cpuPerPass: { unit: 'CPU µs/op', perPass: keys.length },
    check(total) {
      if (passes !== total + 1) throw new Error(`the ceiling ran ${passes} passes, not ${total + 1}`);
    },
    close: () => {
      socket.destroy();
    },
  };
}
