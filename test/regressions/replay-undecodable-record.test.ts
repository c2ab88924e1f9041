// The resilient publisher's replayer (examples/resilient-publisher/replayer.ts) decodes each spooled
// record into its idempotency key and data before sending a batch. A record whose checksum holds
// but whose payload is not an event (appended through the public `Spool.append`, or a resync that
// landed on record-shaped bytes inside an event's data) made `decodeEvent` throw on every attempt:
// the replayer logged `spool-read-failed` and retried the same batch forever, so nothing behind
// that record was ever replayed and the spool never drained. Such a record is now skipped like a
// damaged one, and counted in `stats.corrupt`.
import { afterEach, describe, expect, it } from 'vitest';
import { readUniqueEvents } from '../../examples/resilient-publisher/consumer.js';
import type { LogEntry } from '../../examples/resilient-publisher/monitor.js';
import { ResilientPublisher } from '../../examples/resilient-publisher/publisher.js';
import { encodeEvent } from '../../examples/resilient-publisher/record-codec.js';
import { Spool } from '../../examples/resilient-publisher/spool.js';
import { useTestClients } from '../client/support.js';
import { Progress } from '../examples/resilient-publisher-kit.js';
import { useScratchDirs } from '../examples/resilient-publisher-spool-kit.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const { open } = useTestClients(useRedisServer());
const scratch = useScratchDirs();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const NOT_AN_EVENT = Buffer.from([0, 0, 1, 2, 3]); // a key length of 0

describe('a spooled record that is not an event', () => {
  for (const batchEvents of [1, 256]) {
    it(`is skipped and counted, and replay goes on past it (batches of ${batchEvents})`, async () => {
      const directory = scratch();
      const filler = Spool.open({ directory, fsync: 'never' });
      filler.append(encodeEvent('k0', 'data 0'));
      filler.append(NOT_AN_EVENT);
      filler.append(encodeEvent('k1', 'data 1'));
      filler.close();
      const client = await open();
      const logs: LogEntry[] = [];
      const progress = new Progress();
      const publisher = new ResilientPublisher(client, {
        stream: `undecodable:${batchEvents}`,
        spool: { directory, fsync: 'never' },
        replayBatchEvents: batchEvents,
        replayRetryMs: 5,
        logger: (entry) => {
          logs.push(entry);
          progress.notify();
        },
      });
      cleanups.push(() => publisher.close());
      await progress.until(
        'the spool drained',
        () => logs.some((entry) => entry.event === 'spool-drained'),
        3_000,
      );
      expect(publisher.stats).toMatchObject({ replayed: 2, corrupt: 1, spooledEvents: 0 });
      expect(logs.find((entry) => entry.event === 'spool-corrupt')).toMatchObject({
        level: 'error',
        records: 1,
      });
      const keys = (await readUniqueEvents(client, `undecodable:${batchEvents}`)).events.map(
        (event) => event.key,
      );
      expect(keys).toEqual(['k0', 'k1']);
    });
  }
});
