// The outage scenario's node-redis driver: `createClient` from the `redis` package with its
// defaults (an offline queue), or in a cluster `createCluster` with a `nodeAddressMap` sending the
// proxied primary's calls through the proxy, and SPUBLISH. Its fail-fast error, ClientOfflineError,
// only comes with `disableOfflineQueue`, which is off by default.
import { ClientOfflineError, createClient, createCluster, TimeoutError } from 'redis';
import { Outcome } from '../call-log.js';
import type { ContenderTarget } from '../messages.js';
import { endpointName, type OutageDriver, STREAM_MAXLEN } from './driver.js';

export async function connectNodeRedis(target: ContenderTarget): Promise<OutageDriver> {
  const trim = { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: STREAM_MAXLEN } } as const;
  const onError = () => {
    // A lost connection shows up as failed calls; without a listener it would crash the process.
  };
  let publish: OutageDriver['publish'];
  let xadd: OutageDriver['xadd'];
  if (target.kind === 'standalone') {
    const client = createClient({ socket: { host: target.host, port: target.port } });
    client.on('error', onError);
    await client.connect();
    publish = (channel, message) => client.publish(channel, message);
    xadd = (stream, message) => client.xAdd(stream, '*', { event: message }, trim);
  } else {
    const cluster = createCluster({
      rootNodes: target.seeds.map((seed) => ({ socket: seed })),
      nodeAddressMap: { [endpointName(target.proxied.from)]: target.proxied.to },
    });
    cluster.on('error', onError);
    await cluster.connect();
    publish = (channel, message) => cluster.sPublish(channel, message);
    xadd = (stream, message) => cluster.xAdd(stream, '*', { event: message }, trim);
  }
  return {
    publish,
    xadd,
    classify(error) {
      if (error instanceof ClientOfflineError) return Outcome.RejectedFast;
      if (error instanceof TimeoutError) return Outcome.TimedOut;
      return Outcome.Failed;
    },
  };
}
