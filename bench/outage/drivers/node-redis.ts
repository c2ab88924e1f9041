// The outage scenario's node-redis driver: `createClient` from the `redis` package with its
// defaults (no command timeout, an offline queue). Its fail-fast error, ClientOfflineError, only
// comes with `disableOfflineQueue`, which is off by default.
import { ClientOfflineError, createClient, TimeoutError } from 'redis';
import { Outcome } from '../call-log.js';
import { type OutageDriver, STREAM_MAXLEN } from './driver.js';

export async function connectNodeRedis(host: string, port: number): Promise<OutageDriver> {
  const client = createClient({ socket: { host, port } });
  client.on('error', () => {
    // A lost connection shows up as failed calls; without a listener it would crash the process.
  });
  await client.connect();
  const trim = { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: STREAM_MAXLEN } } as const;
  return {
    publish: (channel, message) => client.publish(channel, message),
    xadd: (stream, message) => client.xAdd(stream, '*', { event: message }, trim),
    classify(error) {
      if (error instanceof ClientOfflineError) return Outcome.RejectedFast;
      if (error instanceof TimeoutError) return Outcome.TimedOut;
      return Outcome.Failed;
    },
  };
}
