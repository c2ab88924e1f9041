// What the spool throws when it cannot keep an event, each saying whether the event was kept:
// a caller that retries after a rejection must not create a duplicate it cannot remove (issue 18).

/**
 * Thrown by `append` when the record does not fit: always under `reject`; under `drop-oldest` only
 * while files that could not be deleted still hold the room. The event was not written.
 */
export class SpoolFullError extends Error {
  override name = 'SpoolFullError';

  constructor(
    readonly spoolBytes: number,
    readonly recordBytes: number,
    readonly maxBytes: number,
    overflow: string,
  ) {
    super(
      `spool full: ${spoolBytes} of ${maxBytes} bytes used, a record of ${recordBytes} bytes does not fit; ` +
        `the event was not spooled (overflow policy "${overflow}")`,
    );
  }
}

/**
 * Thrown by `append` under `fsync: 'always'` when the fsync after the write failed (EIO). Usually
 * the record is cut off again (`kept: false`): nothing was spooled, and retrying is safe. If the cut
 * fails too, the record stays in the spool and will be replayed, but may not survive a power loss
 * (`kept: true`): the caller must not publish it again.
 */
export class SpoolSyncError extends Error {
  override name = 'SpoolSyncError';

  constructor(
    readonly kept: boolean,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(
      kept
        ? `fsync failed (${reason}) and the record could not be removed: spooled, durability unknown`
        : `fsync failed (${reason}): the record was removed, the event was not spooled`,
      options,
    );
  }
}

/** Thrown by `Spool.open` when another live process (or another Spool here) holds the directory. */
export class SpoolLockedError extends Error {
  override name = 'SpoolLockedError';

  constructor(
    readonly directory: string,
    readonly holderPid: number,
  ) {
    super(
      `spool directory ${directory} is in use by process ${holderPid} (lock file spool.lock); ` +
        'one process per spool directory',
    );
  }
}
