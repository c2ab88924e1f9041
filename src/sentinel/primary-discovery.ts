// Finding the primary (issue 12 "Discovery", PROTOCOL.md §3.3-3.4): ask the sentinels in turn with
// SENTINEL GET-MASTER-ADDR-BY-NAME, then check the candidate with ROLE, using the data
// credentials. A candidate that does not say `master`, or cannot be reached, is asked about again
// after a backoff (a stale sentinel, or a failover under way), at most MAX_ROUNDS times; one that
// refuses the data credentials fails the resolution at once.
import { endpointKey } from '../client/endpoint.js';
import {
  RespireAuthenticationError,
  RespireConnectionError,
  type RespireEndpoint,
  RespireError,
} from '../errors.js';
import type { RespValue } from '../resp/types.js';
import { askInTurn, type DiscoveryContext, watcherClosed } from './ask-in-turn.js';
import { backoffDelay } from './backoff.js';
import { dataSettings, type ExchangeContext, exchange } from './exchange.js';
import { type DataRole, readPrimaryAddress, readRole } from './replies.js';

/** Rounds of ask-then-ROLE before a resolution gives up (about 10 s of backoff in all). */
export const MAX_ROUNDS = 10;

/** Resolves with a primary that says ROLE master. */
export async function resolvePrimary(context: DiscoveryContext): Promise<RespireEndpoint> {
  const name = context.sentinel.serviceName;
  let primary: RespireEndpoint | undefined;
  let role: DataRole | RespireError = 'other';
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    if (round > 1) await context.wakeup.pause(backoffDelay(round - 1, context.random));
    if (context.closed()) throw watcherClosed(name);
    ({ value: primary } = await askInTurn(
      context,
      ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name],
      readAddress,
    ));
    role = await checkRole(context, primary).catch((error: unknown) => asRespireError(error, primary!));
    if (role === 'master') return primary;
    // Refused credentials do not get better by asking again: say so now.
    if (role instanceof RespireAuthenticationError) {
      throw new RespireAuthenticationError(
        `the primary of "${name}", ${endpointKey(primary)}, refused the data credentials: ${role.message}`,
        { endpoint: primary, cause: role, written: false },
      );
    }
  }
  const said = role instanceof RespireError ? `cannot be reached (${role.message})` : `says ROLE ${role}`;
  throw new RespireConnectionError(
    `the sentinels of "${name}" name ${endpointKey(primary!)} as its primary, but it ${said} after ${MAX_ROUNDS} tries`,
    { endpoint: primary, cause: role instanceof RespireError ? role : undefined },
  );
}

/** What ROLE says `node` is, asked with the data credentials. Rejects when it cannot be reached. */
export async function checkRole(context: ExchangeContext, node: RespireEndpoint): Promise<DataRole> {
  const [reply] = await exchange(dataSettings(context, node), [['ROLE']]);
  if (reply instanceof Error) throw reply;
  return readRole(reply!, node);
}

function readAddress(reply: RespValue | Error, sentinel: RespireEndpoint): RespireEndpoint | null {
  if (reply instanceof Error) throw reply;
  return readPrimaryAddress(reply, sentinel);
}

function asRespireError(error: unknown, endpoint: RespireEndpoint): RespireError {
  if (error instanceof RespireError) return error;
  return new RespireConnectionError(`cannot check ${endpointKey(endpoint)}: ${String(error)}`, {
    endpoint,
    cause: error,
  });
}
