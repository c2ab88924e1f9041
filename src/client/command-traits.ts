// What the client must know about a command before sending it: whether it blocks (so it runs on a
// dedicated connection, exempt from the reply deadline) and whether it only reads (so a retry of
// it is safe after it was written). PROTOCOL.md §6 lists the blocking commands of Redis 7.
import type { RespArgument } from '../resp/encoder.js';

const ALWAYS_BLOCKING = new Set([
  'BLPOP',
  'BRPOP',
  'BRPOPLPUSH',
  'BLMOVE',
  'BLMPOP',
  'BZPOPMIN',
  'BZPOPMAX',
  'BZMPOP',
  'WAIT',
  'WAITAOF',
]);

/** XREAD and XREADGROUP block only with a BLOCK argument. */
const BLOCKING_WITH_BLOCK_ARGUMENT = new Set(['XREAD', 'XREADGROUP']);

/** Whether the command can block the connection server-side. Cheap for names that cannot. */
export function isBlockingCommand(args: readonly RespArgument[]): boolean {
  const name = args[0];
  if (typeof name !== 'string' || name.length < 4) return false;
  // Every blocking command starts with B, W or X: most commands are rejected on one comparison.
  const initial = name.charCodeAt(0) | 0x20;
  if (initial !== 0x62 && initial !== 0x77 && initial !== 0x78) return false;
  const upper = name.toUpperCase();
  if (ALWAYS_BLOCKING.has(upper)) return true;
  if (!BLOCKING_WITH_BLOCK_ARGUMENT.has(upper)) return false;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg === 'string' && arg.toUpperCase() === 'BLOCK') return true;
  }
  return false;
}
