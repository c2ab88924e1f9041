// The outage scenario's ioredis driver, with ioredis's defaults: no command timeout, an offline
// queue, up to 20 reconnect attempts per command; in a cluster, `Cluster` with a `natMap` sending
// the proxied primary's calls through the proxy, and SPUBLISH. It has no fail-fast error of its own.
import { Cluster, Redis } from 'ioredis';
import { Outcome } from '../call-log.js';
import type { ContenderTarget } from '../messages.js';
import { endpointName, type OutageDriver, STREAM_MAXLEN } from './driver.js';

export async function connectIoredis(target: ContenderTarget): Promise<OutageDriver> {
  const redis =
    target.kind === 'standalone'
      ? new Redis({ host: target.host, port: target.port, lazyConnect: true })
      : new Cluster(target.seeds, {
          lazyConnect: true,
          natMap: { [endpointName(target.proxied.from)]: target.proxied.to },
        });
  redis.on('error', () => {
    // A lost connection shows up as failed calls; ioredis would otherwise print every one.
  });
  await redis.connect();
  return {
    publish:
      target.kind === 'standalone'
        ? (channel, message) => redis.publish(channel, message)
        : (channel, message) => redis.spublish(channel, message),
    xadd: (stream, message) => redis.xadd(stream, 'MAXLEN', '~', STREAM_MAXLEN, '*', 'event', message),
    classify(error) {
      // Only with the commandTimeout option, which is off by default: "Command timed out".
      if (error instanceof Error && /timed out/i.test(error.message)) return Outcome.TimedOut;
      return Outcome.Failed;
    },
  };
}
