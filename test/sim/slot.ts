// The simulated Cluster's key slots (issue 16), written apart from src/cluster/key-slot.ts so the
// client's routing is never checked against itself: CRC16/XMODEM of the key, or of the first
// non-empty `{…}` hash tag, mod 16384 (the Redis Cluster specification), and the keys of the
// commands the workloads send.

export const SLOTS = 16384;

export function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % SLOTS;
}

/** The keys of a command the simulated Redis runs; none for keyless ones. */
export function keysOf(name: string, args: readonly string[]): readonly string[] {
  switch (name) {
    case 'GET':
    case 'SET':
    case 'INCR':
    case 'INCRBY':
    case 'RPUSH':
    case 'XADD':
      return args.slice(1, 2);
    case 'DEL':
    case 'WATCH':
      return args.slice(1);
    case 'BLPOP':
      return args.slice(1, -1);
    default:
      return [];
  }
}

/** Commands a replica serves to a READONLY connection. */
export const READS: ReadonlySet<string> = new Set(['GET']);
