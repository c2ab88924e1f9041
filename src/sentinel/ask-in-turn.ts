// Asking the sentinels in turn (PROTOCOL.md §3.2, §3.7): front first, each on a connection of its
// own with the short attempt timeout; the first that answers usefully moves to the front and
// teaches the sentinels it knows (SENTINEL SENTINELS, pipelined on the same connection). When none
// answers, the error says which of the two it was: no sentinel reachable, or none knowing the
// service, naming the service and the sentinels tried (never a credential: none is in a message).
import { endpointKey } from '../client/endpoint.js';
import { RespireConnectionError, type RespireEndpoint } from '../errors.js';
import type { RespValue } from '../resp/types.js';
import type { RandomSource } from '../util/random.js';
import type { Wakeup } from './backoff.js';
import { type ExchangeContext, exchange, sentinelSettings } from './exchange.js';
import { readInstances } from './replies.js';
import type { SentinelList } from './sentinel-list.js';

export interface DiscoveryContext extends ExchangeContext {
  readonly sentinels: SentinelList;
  readonly random: RandomSource;
  /** Woken by a new hint (a waiting round asks again at once) and by close. */
  readonly wakeup: Wakeup;
  /** True once the watcher is closed: discovery stops at its next step. */
  readonly closed: () => boolean;
}

/**
 * Reads one sentinel's reply to the command asked: a value, or null when this sentinel does not
 * know the service. Throwing means the sentinel answered but not usefully.
 */
export type ReadAnswer<T> = (reply: RespValue | Error, sentinel: RespireEndpoint) => T | null;

/** Asks `command` of each sentinel in turn until one answers; that one moves to the front. */
export async function askInTurn<T>(
  context: DiscoveryContext,
  command: readonly string[],
  read: ReadAnswer<T>,
): Promise<{ value: T; sentinel: RespireEndpoint }> {
  const name = context.sentinel.serviceName;
  const unreachable: { sentinel: RespireEndpoint; error: unknown }[] = [];
  const unaware: RespireEndpoint[] = [];
  for (const sentinel of context.sentinels.all) {
    if (context.closed()) throw watcherClosed(name);
    try {
      const [reply, known] = await exchange(sentinelSettings(context, sentinel), [
        command,
        ['SENTINEL', 'SENTINELS', name],
      ]);
      const value = read(reply!, sentinel);
      if (value === null) {
        unaware.push(sentinel);
        continue;
      }
      context.sentinels.promote(sentinel);
      learnFrom(context, sentinel, known!);
      return { value, sentinel };
    } catch (error) {
      // Not reachable, or it answered but not usefully (not a sentinel, a refused command).
      unreachable.push({ sentinel, error });
    }
  }
  throw discoveryError(name, unaware, unreachable);
}

/** Learns the sentinels in a SENTINEL SENTINELS reply; a failed or odd reply teaches nothing. */
function learnFrom(context: DiscoveryContext, sentinel: RespireEndpoint, reply: RespValue | Error): void {
  if (reply instanceof Error) return;
  try {
    context.sentinels.learn(readInstances('SENTINEL SENTINELS', reply, sentinel).usable);
  } catch {
    // A reply Respire cannot read teaches nothing; the service's answer still stands.
  }
}

function discoveryError(
  name: string,
  unaware: readonly RespireEndpoint[],
  unreachable: readonly { sentinel: RespireEndpoint; error: unknown }[],
): RespireConnectionError {
  const down = unreachable.map(({ sentinel }) => endpointKey(sentinel)).join(', ');
  const cause = new AggregateError(
    unreachable.map(({ error }) => error),
    'the sentinels that could not be asked',
  );
  if (unaware.length > 0) {
    const also = unreachable.length > 0 ? `; not reachable: ${down}` : '';
    return new RespireConnectionError(
      `no sentinel knows the service "${name}" (asked ${unaware.map(endpointKey).join(', ')}${also})`,
      { cause, written: false },
    );
  }
  const first = unreachable[0]?.error;
  const detail = first instanceof Error ? `; first error: ${first.message}` : '';
  return new RespireConnectionError(
    `no sentinel of the service "${name}" is reachable (tried ${down})${detail}`,
    { cause, written: false },
  );
}

export function watcherClosed(name: string): RespireConnectionError {
  return new RespireConnectionError(`the sentinel watcher of "${name}" is closed`, { written: false });
}
