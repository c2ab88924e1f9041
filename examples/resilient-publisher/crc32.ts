// CRC-32 (IEEE 802.3, the zlib/PNG checksum: reflected polynomial 0xEDB88320, initial value and
// final XOR 0xFFFFFFFF), table-driven, written here so the example has no dependency.

const TABLE = buildTable();

function buildTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
    table[byte] = crc >>> 0;
  }
  return table;
}

/**
 * The CRC-32 of `bytes[start, end)`. Pass the previous result as `previous` to continue a checksum
 * over several pieces: `crc32(b, 0, b.length, crc32(a))` equals the checksum of `a` then `b`.
 * Check value: `crc32(Buffer.from('123456789')) === 0xcbf43926`.
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, previous = 0): number {
  let crc = ~previous;
  for (let index = start; index < end; index++) {
    crc = TABLE[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}
