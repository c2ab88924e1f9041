// A command the router wrote as several parts (a split MSET, DEL or UNLINK; a fanned-out FLUSHALL)
// some of whose parts ran while the one whose error the caller gets was never sent: a MOVED or ASK
// to a node whose circuit is open (its target is checked before anything is written there), an
// acquire deadline on one node; or was refused by its server (CLUSTERDOWN for a slot no longer
// served, OOM, READONLY from a demoted primary). That part's error says nothing was sent
// (RespireCircuitOpenError, `written: false`) or that the command did not run (a server's error
// reply), which for the command as a whole is false: the caller would think it safe to send
// again, or that the healthy nodes' keys are as they were. The caller gets instead a
// RespireConnectionError with `written: true` (the ambiguous write: "may have run, do not replay
// blindly"), whose message says which parts ran, which may have, and which were not sent, and
// whose `cause` is that part's own error.
import { argumentText } from '../client/command-table.js';
import {
  RespireCircuitOpenError,
  RespireConnectionError,
  RespireServerError,
  RespireTimeoutError,
} from '../errors.js';
import type { RespArgument } from '../resp/encoder.js';

/**
 * What became of one part: its reply came (`ran`), Redis answered it with an error (`refused`), it
 * failed after it may have been written (`maybe`: a lost connection, a reply deadline), or it was
 * never sent (`unsent`).
 */
export type PartFate = 'ran' | 'refused' | 'maybe' | 'unsent';

/** What became of a part that settled, `failed` or not, with `outcome`. */
export function fateOf(failed: boolean, outcome: unknown): PartFate {
  if (!failed) return 'ran';
  if (outcome instanceof RespireServerError) return 'refused';
  return claimsUnsent(outcome) ? 'unsent' : 'maybe';
}

/** Whether an error says its command was never sent. */
function claimsUnsent(error: unknown): boolean {
  if (error instanceof RespireCircuitOpenError) return true;
  return (
    (error instanceof RespireConnectionError || error instanceof RespireTimeoutError) &&
    error.written === false
  );
}

/**
 * The error for a written command whose part failed with `error`, or `error` itself when it tells
 * the truth: it does not claim "not sent" or "not run" (a server's refusal), or no part ran or may
 * have run. `describe(i)` names
 * part `i` for the message (its keys' positions, its node).
 */
export function partialWriteError(
  args: readonly RespArgument[],
  fates: readonly PartFate[],
  error: unknown,
  describe: (part: number) => string,
): unknown {
  // A server's error reply (CLUSTERDOWN, OOM, READONLY…) says as much as "not sent": that this
  // write did not run, when only this part did not.
  const notRun = claimsUnsent(error) || error instanceof RespireServerError;
  if (!notRun || !fates.some((fate) => fate === 'ran' || fate === 'maybe')) return error;
  const said: string[] = [];
  const tell = (fate: PartFate, what: string): void => {
    const parts = fates.flatMap((f, i) => (f === fate ? [describe(i)] : []));
    if (parts.length > 0) said.push(`${parts.join(', ')} ${what}`);
  };
  tell('ran', 'ran');
  tell('maybe', 'may have run');
  tell('refused', 'answered an error');
  tell('unsent', 'not sent');
  const name = argumentText(args[0]!).toUpperCase();
  const reason = error instanceof Error ? error.message : String(error);
  return new RespireConnectionError(
    `${name} was partly applied (sent in ${fates.length} parts, not atomically): ${said.join('; ')} (${reason})`,
    { endpoint: (error as RespireCircuitOpenError).endpoint, written: true, cause: error },
  );
}

/** Names a split command's part by the positions of its keys in the caller's command (1-based). */
export function keysOfPart(keyNumbers: readonly number[]): string {
  return `keys #${keyNumbers.map((number) => number + 1).join(', #')}`;
}
