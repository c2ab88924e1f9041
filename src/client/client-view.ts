// The data methods that run on a dedicated connection of the key's node (README "Streamed values,
// hash imports, durability batches"), on the client's views as on the client: a key-prefixed
// view prefixes their keys as it prefixes every command's, an import's temporary key and a
// durability batch's writes included; `withoutCache()` views pass them through (none of them reads
// through the client-side cache).
import { Commander } from './commander.js';
import type { RedisArgument } from './commands/caller.js';
import type { DurableBatch, DurableOptions } from './durable/durable-batch.js';
import type { EntrySource } from './imports/field-chunks.js';
import type { HashImport, ImportHashOptions } from './imports/hash-import.js';
import { prefixKey } from './key-prefix.js';
import type { SetFromStreamOptions, ValueSource } from './streams/upload.js';
import type { GetStreamOptions, ValueStream } from './streams/value-stream.js';

/** The client's side of its views' data methods: keys arrive whole, prefix included. */
export interface DataTarget {
  getStream(key: RedisArgument, options?: GetStreamOptions): ValueStream;
  setFromStream(key: RedisArgument, source: ValueSource, options: SetFromStreamOptions): Promise<boolean>;
  /** `importHash` whose temporary key also starts with `prefix` (import-key.ts). */
  importHashIn(
    prefix: string | Buffer | undefined,
    key: RedisArgument,
    entries: EntrySource,
    options: ImportHashOptions,
  ): HashImport;
  /** `durable` whose writes' keys get `prefix`. */
  durableIn(prefix: string | Buffer | undefined, options: DurableOptions): DurableBatch;
}

/** A view of the client (key-prefixed, or reading through the cache) with its data methods. */
export abstract class ClientView extends Commander {
  constructor(
    /** The client. */
    protected readonly data: DataTarget,
    /** The view's key prefix, as bytes when given as a Buffer; none for `withoutCache()`. */
    protected readonly prefix: string | Buffer | undefined,
  ) {
    super();
  }

  /** `redis.getStream` on the view's key. */
  getStream(key: RedisArgument, options?: GetStreamOptions): ValueStream {
    return this.data.getStream(this.fullKey(key), options);
  }

  /** `redis.setFromStream` on the view's key. */
  setFromStream(key: RedisArgument, source: ValueSource, options: SetFromStreamOptions): Promise<boolean> {
    return this.data.setFromStream(this.fullKey(key), source, options);
  }

  /** `redis.importHash` on the view's key; the temporary key of `replace` also has the prefix. */
  importHash(key: RedisArgument, entries: EntrySource, options: ImportHashOptions): HashImport {
    return this.data.importHashIn(this.prefix, this.fullKey(key), entries, options);
  }

  /** `redis.durable`, whose writes' keys get the view's prefix. */
  durable(options: DurableOptions): DurableBatch {
    return this.data.durableIn(this.prefix, options);
  }

  private fullKey(key: RedisArgument): RedisArgument {
    return this.prefix === undefined ? key : (prefixKey(this.prefix, key) as RedisArgument);
  }
}
