// Whether a command can block its connection server-side, so that it runs on a dedicated
// connection, exempt from the reply deadline. The command table's `blocking` flag decides, plus
// PROTOCOL.md §6: WAIT and WAITAOF block without the flag, XREAD and XREADGROUP only with BLOCK.
// This runs on every command, so names that cannot block are turned away on their first letter.
import type { RespArgument } from '../resp/encoder.js';
import { commandTable } from './command-table.js';

/** Blocking although the table does not flag them (WAITAOF is 7.2+, so absent from a 7.0 table). */
const UNFLAGGED_BLOCKING = ['wait', 'waitaof'];
/** Flagged blocking, but they block only when given a BLOCK argument. */
const BLOCKING_WITH_BLOCK_ARGUMENT = new Set(['xread', 'xreadgroup']);

interface BlockingNames {
  names: ReadonlySet<string>;
  /** Bit `c - 0x61` set when some blocking name starts with the letter `c`. */
  initials: number;
  shortest: number;
}

let blocking: BlockingNames | undefined;

function blockingNames(): BlockingNames {
  const names = new Set(UNFLAGGED_BLOCKING);
  for (const spec of commandTable().values()) if (spec.flags.has('blocking')) names.add(spec.name);
  let initials = 0;
  let shortest = Number.POSITIVE_INFINITY;
  for (const name of names) {
    initials |= 1 << (name.charCodeAt(0) - 0x61);
    shortest = Math.min(shortest, name.length);
  }
  return { names, initials, shortest };
}

/** Whether the command can block the connection server-side. Cheap for names that cannot. */
export function isBlockingCommand(args: readonly RespArgument[]): boolean {
  const name = args[0];
  if (typeof name !== 'string') return false;
  blocking ??= blockingNames();
  // Lower-case the initial ASCII letter; anything else lands outside the 26 bits.
  const letter = (name.charCodeAt(0) | 0x20) - 0x61;
  if (letter < 0 || letter > 25 || (blocking.initials & (1 << letter)) === 0) return false;
  if (name.length < blocking.shortest) return false;
  const lower = name.toLowerCase();
  if (!blocking.names.has(lower)) return false;
  if (!BLOCKING_WITH_BLOCK_ARGUMENT.has(lower)) return true;
  return hasBlockOption(args);
}

/**
 * Whether an XREAD/XREADGROUP line has a BLOCK option, read as the server reads it (xreadCommand
 * in t_stream.c): options up to STREAMS, skipping COUNT's value and GROUP's two names, so a
 * stream or group named `block` is not taken for the option.
 */
function hasBlockOption(args: readonly RespArgument[]): boolean {
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg !== 'string') continue;
    const word = arg.toUpperCase();
    if (word === 'BLOCK') return true;
    if (word === 'STREAMS') return false;
    if (word === 'COUNT') i += 1;
    else if (word === 'GROUP') i += 2;
  }
  return false;
}
