// The kit's own way to run one command on a server and read the reply as plain values, for the
// cluster and sentinel kits (never the client under test): a fresh connection per call, so a
// killed or restarted node never leaves a stale socket behind.
import { RawConnection } from './raw-connection.js';
import type { WireArgument } from './resp-wire.js';
import type { TlsCertificate } from './tls-certificate.js';

/**
 * A reply as plain values: bulk strings as UTF-8 text (or as bytes when asked), simple strings as
 * text, maps as flat arrays.
 */
export type Reply = string | Buffer | number | null | Reply[];

/** An error reply (`-ERR …`, `-MOVED …`), thrown by `adminCommand`. */
export class ReplyError extends Error {
  override readonly name = 'ReplyError';
}

export interface AdminTarget {
  host: string;
  port: number;
  tls?: TlsCertificate | undefined;
  /** Sent with `AUTH` before the command (with `username` when set). */
  password?: string | undefined;
  username?: string | undefined;
}

export interface AdminOptions {
  /** Deadline for connecting and for the reply. Default 5,000 ms. */
  timeoutMs?: number;
  /** Bulk strings as `Buffer`s (binary keys from GETKEYSINSLOT) instead of text. Default false. */
  bulkAsBuffer?: boolean;
}

/** Connect, (AUTH,) send `args`, decode the reply; error replies throw `ReplyError`. */
export async function adminCommand(
  target: AdminTarget,
  args: readonly WireArgument[],
  options: AdminOptions = {},
): Promise<Reply> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const connection = await withTimeout(RawConnection.open(target), timeoutMs, target);
  try {
    const commands: (readonly WireArgument[])[] = [];
    if (target.password !== undefined) {
      commands.push(
        target.username === undefined
          ? ['AUTH', target.password]
          : ['AUTH', target.username, target.password],
      );
    }
    commands.push(args);
    connection.send(...commands);
    const bytes = await connection.readFrames(commands.length, timeoutMs);
    const replies = decodeReplies(bytes, options.bulkAsBuffer ?? false);
    for (const reply of replies) if (reply instanceof ReplyError) throw reply;
    return replies.at(-1) as Reply;
  } finally {
    connection.close();
  }
}

/** `INFO <section>` or `CLUSTER INFO` as a record of its `field:value` lines. */
export async function infoFields(
  target: AdminTarget,
  args: readonly WireArgument[],
): Promise<Record<string, string>> {
  const text = String(await adminCommand(target, args));
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** A flat `[field, value, field, value…]` reply (RESP2 maps, SENTINEL MASTER) as a record. */
export function fieldsOf(reply: Reply): Record<string, Reply> {
  const fields: Record<string, Reply> = {};
  if (!Array.isArray(reply)) return fields;
  for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = reply[i + 1]!;
  return fields;
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, target: AdminTarget): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no connection to ${target.host}:${target.port} in ${timeoutMs} ms`)),
      timeoutMs,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Every complete frame in `bytes` (RESP2, plus the RESP3 scalars and aggregates a server may send). */
export function decodeReplies(bytes: Buffer, bulkAsBuffer = false): (Reply | ReplyError)[] {
  const replies: (Reply | ReplyError)[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const [reply, end] = decodeAt(bytes, offset, bulkAsBuffer);
    replies.push(reply);
    offset = end;
  }
  return replies;
}

function decodeAt(bytes: Buffer, offset: number, bulkAsBuffer: boolean): [Reply | ReplyError, number] {
  const lineEnd = bytes.indexOf('\r\n', offset, 'latin1');
  if (lineEnd === -1) throw new Error('incomplete reply');
  const type = String.fromCharCode(bytes[offset]!);
  const line = bytes.toString('utf8', offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
    case ',':
    case '(':
      return [line, next];
    case '-':
    case '!':
      return [new ReplyError(line), next];
    case ':':
      return [Number(line), next];
    case '#':
      return [line === 't' ? 1 : 0, next];
    case '_':
      return [null, next];
    case '$':
    case '=': {
      const length = Number(line);
      if (length === -1) return [null, next];
      const body = bulkAsBuffer
        ? Buffer.from(bytes.subarray(next, next + length))
        : bytes.toString('utf8', next, next + length);
      return [body, next + length + 2];
    }
    case '*':
    case '~':
    case '>':
    case '%': {
      const count = Number(line) * (type === '%' ? 2 : 1);
      if (count < 0) return [null, next];
      const items: Reply[] = [];
      let position = next;
      for (let i = 0; i < count; i++) {
        const [item, end] = decodeAt(bytes, position, bulkAsBuffer);
        // An error nested in an aggregate (EXEC, MIGRATE batches) stays a value: its text.
        items.push(item instanceof ReplyError ? `-${item.message}` : item);
        position = end;
      }
      return [items, position];
    }
    default:
      throw new Error(`unexpected reply type ${JSON.stringify(type)}`);
  }
}
