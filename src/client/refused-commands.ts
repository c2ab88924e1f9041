// The commands `send` refuses (issue 19 #1, README "Commands `send` refuses"): each changes the
// state of the connection it runs on behind the client's back. On the shared pipeline that hands
// one caller another caller's reply (a subscribe confirmation is a push in RESP3, never a reply;
// RESP2 subscriber mode and MONITOR take the connection over; CLIENT REPLY OFF and QUIT stop the
// replies), and what the handshake sets from the options (database, name, user, protocol) would
// be lost on the next reconnect. This runs on every command, so names that cannot be refused are
// turned away on their first letter and length (as command-traits.ts does).
import { RespireUnsupportedCommandError } from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';

const SUBSCRIBER =
  'use subscribe(), psubscribe(), ssubscribe() and their unsubscribe counterparts, which run on the client’s own subscriber connection and restore it after a reconnect';

/** What to do instead, per refused name (lower case); `client` is decided by its subcommand. */
const REFUSED: ReadonlyMap<string, string> = new Map([
  ['subscribe', SUBSCRIBER],
  ['psubscribe', SUBSCRIBER],
  ['ssubscribe', SUBSCRIBER],
  ['unsubscribe', SUBSCRIBER],
  ['punsubscribe', SUBSCRIBER],
  ['sunsubscribe', SUBSCRIBER],
  [
    'select',
    'set the `database` option, which every new connection selects (a raw SELECT is lost on reconnect)',
  ],
  [
    'monitor',
    'MONITOR turns the connection into a stream of every command; run it on a connection of your own',
  ],
  ['reset', 'RESET drops the database, name and user the client set up; close() and connect again instead'],
  ['hello', 'the client negotiates the protocol from the `protocol` option on every connection'],
  ['auth', 'set the `username` and `password` options, which every new connection authenticates with'],
  ['quit', 'use close(), which waits for the replies in flight'],
  ['multi', 'use multi() (or session.multi() in a WATCH session), which sends MULTI and EXEC together'],
  ['watch', 'use watch(), which runs WATCH on a dedicated connection'],
]);

const CLIENT_REFUSED: ReadonlyMap<string, string> = new Map([
  [
    'setname',
    'set the `clientName` option, which every new connection sends (a raw CLIENT SETNAME is lost on reconnect)',
  ],
  ['reply', 'the client matches every command to its reply, so replies cannot be switched off'],
]);

/** Bit `length` of entry `letter - 'a'` is set when a refused name of that length starts so. */
const LENGTHS_BY_INITIAL = new Uint32Array(26);
for (const name of [...REFUSED.keys(), 'client']) {
  LENGTHS_BY_INITIAL[name.charCodeAt(0) - 0x61]! |= 1 << name.length;
}

/**
 * Why `args` may not be sent, or undefined when it may. In a WATCH session, whose connection is
 * the caller's own for the session, WATCH itself is allowed (`session` true).
 */
export function refusedCommand(
  args: readonly RespArgument[],
  session = false,
): RespireUnsupportedCommandError | undefined {
  const name = commandWord(args[0]);
  if (name === undefined) return undefined;
  const letter = (name.charCodeAt(0) | 0x20) - 0x61;
  if (letter < 0 || letter > 25 || name.length > 31) return undefined;
  if ((LENGTHS_BY_INITIAL[letter]! & (1 << name.length)) === 0) return undefined;
  const lower = name.toLowerCase();
  if (lower === 'client') {
    const sub = commandWord(args[1])?.toLowerCase();
    const instead = sub === undefined ? undefined : CLIENT_REFUSED.get(sub);
    return instead === undefined
      ? undefined
      : new RespireUnsupportedCommandError(`CLIENT ${sub!.toUpperCase()}`, instead);
  }
  const instead = REFUSED.get(lower);
  if (instead === undefined || (session && lower === 'watch')) return undefined;
  // HELLO without a protocol version only reports the connection's details.
  if (lower === 'hello' && args.length === 1) return undefined;
  return new RespireUnsupportedCommandError(lower.toUpperCase(), instead);
}

/** A command or subcommand name as text; Buffers are read as Latin-1 (names are ASCII). */
function commandWord(arg: RespArgument | undefined): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg instanceof Uint8Array && arg.length <= 31)
    return Buffer.from(arg.buffer, arg.byteOffset, arg.length).toString('latin1');
  return undefined;
}
