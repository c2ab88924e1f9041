// Records every socket write towards one port with the local port it left from: which commands a
// test saw leave on which connection (a hash import's transactions, a durability batch's WAIT).
// The spy is restored after the test by useTestClients (support.ts).
import net from 'node:net';
import { vi } from 'vitest';

export interface RecordedWrite {
  /** The bytes written, as latin1 text (RESP command names and keys read as they are). */
  readonly text: string;
  readonly localPort: number;
}

/** Writes to `port` (read when each write happens, so a lazy handle's port works) from now on. */
export function recordWrites(port: () => number): RecordedWrite[] {
  const writes: RecordedWrite[] = [];
  const write = net.Socket.prototype.write;
  vi.spyOn(net.Socket.prototype, 'write').mockImplementation(function (
    this: net.Socket,
    ...args: Parameters<net.Socket['write']>
  ) {
    if (this.remotePort === port()) {
      writes.push({
        text: Buffer.from(args[0] as Uint8Array).toString('latin1'),
        localPort: this.localPort!,
      });
    }
    return write.apply(this, args);
  });
  return writes;
}

/** The local ports of the writes that carry the command `name` (as a RESP bulk string). */
export function portsOf(writes: readonly RecordedWrite[], name: string): number[] {
  return writes.filter((write) => write.text.includes(`\r\n${name}\r\n`)).map((write) => write.localPort);
}
