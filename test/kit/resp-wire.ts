// The kit's own minimal RESP code, independent of `src/resp`, so tests never check the decoder
// against itself: encode a request, find where a reply frame ends, read a request.

/** One argument of a request; numbers are sent as decimal text. */
export type WireArgument = string | Uint8Array | number;

const CRLF = Buffer.from('\r\n');

/** A command as an array of bulk strings (PROTOCOL.md §1.5), built by hand. */
export function encodeRequest(args: readonly WireArgument[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = typeof arg === 'number' ? Buffer.from(String(arg)) : Buffer.from(arg);
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

/** Several commands back to back, as a pipeline. */
export function encodePipeline(commands: readonly (readonly WireArgument[])[]): Buffer {
  return Buffer.concat(commands.map(encodeRequest));
}

/** Marks an open streamed aggregate on the scanner's stack: it ends at `.`, not at a count. */
const STREAMED = -1;

/**
 * The end offset of the top-level frame starting at `offset`, or -1 when it is not complete yet.
 * An attribute counts with the value it annotates (PROTOCOL.md §1.3); a push is a frame of its own.
 * Covers RESP2 and RESP3 including streamed strings and aggregates. Throws on bytes that cannot
 * start or continue a frame; it checks framing only, not the text of scalars.
 */
export function frameEnd(bytes: Uint8Array, offset = 0): number {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stack: number[] = [];
  let position = offset;
  for (;;) {
    const lineEnd = indexOfCrlf(buffer, position + 1);
    if (lineEnd === -1) return -1;
    const typeByte = buffer[position]!;
    const type = String.fromCharCode(typeByte);
    const line = buffer.toString('latin1', position + 1, lineEnd);
    position = lineEnd + 2;
    let opened = 0;
    switch (type) {
      case '+':
      case '-':
      case ':':
      case '_':
      case '#':
      case ',':
      case '(':
        break;
      case '$':
      case '!':
      case '=': {
        if (type === '$' && line === '?') {
          position = streamedStringEnd(buffer, position);
          if (position === -1) return -1;
          break;
        }
        const length = parseLength(line, type);
        if (length === -1) break;
        if (position + length + 2 > buffer.length) return -1;
        position += length + 2;
        break;
      }
      case '*':
      case '~':
      case '>':
      case '%':
      case '|': {
        if (line === '?') {
          stack.push(STREAMED);
          continue;
        }
        const count = parseLength(line, type);
        if (count === -1) break;
        const perEntry = type === '%' || type === '|' ? 2 : 1;
        // An attribute and the value after it make one element of the enclosing aggregate.
        opened = count * perEntry + (type === '|' ? 1 : 0);
        break;
      }
      case '.':
        if (stack.at(-1) !== STREAMED) throw new Error(`stray '.' at offset ${position - 3}`);
        stack.pop();
        break;
      default:
        throw new Error(
          `unknown RESP type byte 0x${typeByte.toString(16)} at offset ${lineEnd - line.length - 1}`,
        );
    }
    if (opened > 0) {
      stack.push(opened);
      continue;
    }
    // One element finished: close every aggregate it completes.
    while (stack.length > 0 && stack.at(-1) !== STREAMED) {
      const left = stack.pop()! - 1;
      if (left > 0) {
        stack.push(left);
        break;
      }
    }
    if (stack.length === 0) return position;
  }
}

/** Cuts `buffer` into its complete top-level frames; `rest` holds the incomplete tail. */
export function splitFrames(buffer: Buffer): { frames: Buffer[]; rest: Buffer } {
  const frames: Buffer[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const end = frameEnd(buffer, offset);
    if (end === -1) break;
    frames.push(buffer.subarray(offset, end));
    offset = end;
  }
  return { frames, rest: buffer.subarray(offset) };
}

/**
 * Reads one request (an array of bulk strings, as clients send) at `offset`. Returns its arguments
 * and end offset, or `undefined` when more bytes are needed. Throws on anything else.
 */
export function readRequest(buffer: Buffer, offset = 0): { args: Buffer[]; end: number } | undefined {
  const headerEnd = indexOfCrlf(buffer, offset);
  if (headerEnd === -1) return undefined;
  if (buffer[offset] !== 0x2a) throw new Error(`request does not start with '*' at offset ${offset}`);
  const count = parseLength(buffer.toString('latin1', offset + 1, headerEnd), '*');
  let position = headerEnd + 2;
  const args: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const lineEnd = indexOfCrlf(buffer, position);
    if (lineEnd === -1) return undefined;
    if (buffer[position] !== 0x24) throw new Error(`request argument is not a bulk string at ${position}`);
    const length = parseLength(buffer.toString('latin1', position + 1, lineEnd), '$');
    if (lineEnd + 2 + length + 2 > buffer.length) return undefined;
    args.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + length));
    position = lineEnd + 2 + length + 2;
  }
  return { args, end: position };
}

function streamedStringEnd(buffer: Buffer, position: number): number {
  for (;;) {
    const lineEnd = indexOfCrlf(buffer, position);
    if (lineEnd === -1) return -1;
    if (buffer[position] !== 0x3b) throw new Error(`streamed string chunk without ';' at ${position}`);
    const length = parseLength(buffer.toString('latin1', position + 1, lineEnd), ';');
    position = lineEnd + 2;
    if (length === 0) return position;
    if (position + length + 2 > buffer.length) return -1;
    position += length + 2;
  }
}

function parseLength(text: string, type: string): number {
  if (!/^(?:-1|\d+)$/.test(text)) throw new Error(`bad length ${JSON.stringify(text)} after '${type}'`);
  return Number(text);
}

function indexOfCrlf(buffer: Uint8Array, from: number): number {
  for (let i = from; i + 1 < buffer.length; i++) {
    if (buffer[i] === 0x0d && buffer[i + 1] === 0x0a) return i;
  }
  return -1;
}
