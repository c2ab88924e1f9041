// The outage scenario's ioredis driver, with ioredis's defaults: no command timeout, an offline
// queue, up to 20 reconnect attempts per command. It has no fail-fast error of its own.
import { Redis } from 'ioredis';
import { Outcome } from '../call-log.js';
import { type OutageDriver, STREAM_MAXLEN } from './driver.js';

export async function connectIoredis(host: string, port: number): Promise<OutageDriver> {
  const redis = new Redis({ host, port, lazyConnect: true });
  redis.on('error', () => {
    // A lost connection shows up as failed calls; ioredis would otherwise print every one.
  });
  await redis.connect();
  return {
    publish: (channel, message) => redis.publish(channel, message),
    xadd: (stream, message) => redis.xadd(stream, 'MAXLEN', '~', STREAM_MAXLEN, '*', 'event', message),
    classify(error) {
      // Only with the commandTimeout option, which is off by default: "Command timed out".
      if (error instanceof Error && /timed out/i.test(error.message)) return Outcome.TimedOut;
      return Outcome.Failed;
    },
  };
}
