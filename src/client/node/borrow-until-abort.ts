// A dedicated connection borrowed for an operation that takes a `signal` (streamed values, hash
// imports): the signal ends the wait for a free connection too (all `maxDedicatedConnections`
// lent), with its reason, as it ends a blocking command's wait, instead of sitting out
// `acquireTimeout`. A connection lent after the abort goes straight back: nothing was sent on it.
import type { Channel } from '../../transport/channel.js';
import type { SessionPool } from '../transactions/watch-session.js';

export function borrowUntilAbort(pool: SessionPool, signal: AbortSignal | undefined): Promise<Channel> {
  if (signal === undefined) return pool.acquire();
  if (signal.aborted) return Promise.reject(signal.reason);
  const borrowing = pool.acquire();
  return new Promise((resolve, reject) => {
    let waiting = true;
    const onAbort = (): void => {
      waiting = false;
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    borrowing.then(
      (channel) => {
        signal.removeEventListener('abort', onAbort);
        if (waiting) resolve(channel);
        else pool.release(channel);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
