// The simulated Redis's wire format, written apart from src/resp so the client's decoder is never
// checked against itself: an incremental request parser (arrays of bulk strings, all the client
// sends) and a reply encoder for RESP2 and RESP3.

/** A reply as the simulated Redis builds it, before encoding for a connection's protocol. */
export type Reply =
  | { readonly ok: string }
  | { readonly error: string }
  | number
  | string
  | null
  | readonly Reply[]
  | { readonly map: readonly (readonly [string, Reply])[] }
  | { readonly push: readonly Reply[] };

export const OK: Reply = { ok: 'OK' };

export function encodeReply(reply: Reply, protocol: 2 | 3): string {
  if (reply === null) return protocol === 3 ? '_\r\n' : '$-1\r\n';
  if (typeof reply === 'number') return `:${reply}\r\n`;
  if (typeof reply === 'string') return `$${Buffer.byteLength(reply)}\r\n${reply}\r\n`;
  if (Array.isArray(reply))
    return `*${reply.length}\r\n${reply.map((r) => encodeReply(r, protocol)).join('')}`;
  const tagged = reply as Exclude<Reply, null | number | string | readonly Reply[]>;
  if ('ok' in tagged) return `+${tagged.ok}\r\n`;
  if ('error' in tagged) return `-${tagged.error}\r\n`;
  if ('map' in tagged) {
    const body = tagged.map.map(([k, v]) => encodeReply(k, protocol) + encodeReply(v, protocol)).join('');
    return protocol === 3 ? `%${tagged.map.length}\r\n${body}` : `*${tagged.map.length * 2}\r\n${body}`;
  }
  const items = tagged.push.map((r) => encodeReply(r, protocol)).join('');
  return `${protocol === 3 ? '>' : '*'}${tagged.push.length}\r\n${items}`;
}

/** Parses requests from a byte stream cut anywhere; `take` returns each complete one. */
export class RequestParser {
  private buffer = Buffer.alloc(0);

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffer, chunk]);
  }

  /** The next complete request, or undefined; throws on bytes no client should send. */
  take(): string[] | undefined {
    const buf = this.buffer;
    if (buf.length === 0) return undefined;
    if (buf[0] !== 0x2a)
      throw new Error(`request does not start with '*': ${JSON.stringify(buf.subarray(0, 20).toString())}`);
    let pos = 0;
    const line = (): number | undefined => {
      const end = buf.indexOf('\r\n', pos);
      if (end < 0) return undefined;
      const value = Number(buf.toString('latin1', pos + 1, end));
      pos = end + 2;
      return value;
    };
    const count = line();
    if (count === undefined) return undefined;
    const args: string[] = [];
    for (let i = 0; i < count; i++) {
      if (pos >= buf.length) return undefined;
      if (buf[pos] !== 0x24) throw new Error('request argument is not a bulk string');
      const length = line();
      if (length === undefined || pos + length + 2 > buf.length) return undefined;
      args.push(buf.toString('utf8', pos, pos + length));
      pos += length + 2;
    }
    this.buffer = buf.subarray(pos);
    return args;
  }
}
