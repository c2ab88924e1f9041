// Commands that only read: retrying one after it was written cannot change data (API.md `retry`).
// The command table's `readonly` flag decides, per subcommand where there are subcommands
// (`OBJECT ENCODING`, `XINFO STREAM`), plus the keyless queries the server does not flag.
import type { RespArgument } from '../resp/encoder.js';
import { commandSpecOf } from './command-table.js';

/** Keyless commands without side effects that carry no `readonly` flag (it is for key readers). */
const KEYLESS_QUERIES = new Set(['ping', 'echo', 'info', 'time', 'lastsave']);

/** Whether running the command again after it may have run once is safe. Unknown commands: no. */
export function isReadOnlyCommand(args: readonly RespArgument[]): boolean {
  const spec = commandSpecOf(args);
  if (spec === undefined) return false;
  return spec.flags.has('readonly') || KEYLESS_QUERIES.has(spec.name);
}
