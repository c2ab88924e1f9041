// The workload of one seed (issue 16): operations issued at random moments over the run, each
// recorded with when it started and settled, what it got, what it wrote and what its reply must
// look like. Every written value and every counter key is unique to its operation, so the
// invariants can find each write in the server's log and tell a reply meant for another command.
import type { RespireClient } from '../../src/index.js';
import type { SeededRandom } from '../kit/seeded-random.js';
import type { Scheduler } from './scheduler.js';

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface Op {
  readonly id: number;
  readonly kind: string;
  readonly start: number;
  /** Simulated time it settled; undefined while pending. */
  end?: number;
  outcome?: Outcome;
  /** Tokens this op writes (one execution each); a transaction writes all or none. */
  readonly writes: readonly string[];
  /** Its reply deadlines (ms) per attempt; 0 = unbounded (timeout 0, blocking): settles by close(). */
  readonly timeoutMs: number;
  /** It has no reply deadline (timeout 0, blocking): a reply timeout would be a lie. */
  readonly noReplyDeadline?: boolean;
  /** Settles when written, not when answered. */
  readonly fireAndForget: boolean;
  /** Aborted by its signal at this time, if it was. */
  abortedAt?: number;
  /** Why a successful reply is not the one this op asked for; undefined when it is. */
  readonly check: (value: unknown) => string | undefined;
  /** The key a GET or BLPOP reads, so a value from another key is caught. */
  readonly key?: string;
  /** Time allowed on top of the reply deadlines (a dedicated connection's connect); default 0. */
  readonly extraMs?: number;
  /** Whether a successful reply acknowledges the writes (a WATCH transaction's null does not). */
  readonly acknowledges?: (value: unknown) => boolean;
}

export interface WorkloadSettings {
  ops: number;
  horizonMs: number;
  commandTimeout: number;
  connectTimeout: number;
  blocking: boolean;
  /** Cluster: a transaction's counter key takes its SET key's hash tag, so both share a slot. */
  hashTags?: boolean;
}

/** Which key each written value went to, for checking reads. */
export class Tokens {
  readonly keyOf = new Map<string, string>();
}

const KEYS = 4;
/** The one channel of the pub/sub workload. */
export const CHANNEL = 'news';

export class Workload {
  readonly ops: Op[] = [];
  readonly tokens = new Tokens();
  private nextId = 1;

  constructor(
    private readonly random: SeededRandom,
    private readonly scheduler: Scheduler,
    private readonly settings: WorkloadSettings,
  ) {}

  /** Schedules every operation on `client`, at moments drawn over the horizon after `origin`. */
  schedule(client: RespireClient, origin: number): void {
    this.scheduler.at(origin + this.settings.horizonMs, 'io', 'workload ends', () =>
      this.scheduler.trace('workload ends'),
    );
    for (let i = 0; i < this.settings.ops; i++) {
      const at = origin + this.random.int(0, this.settings.horizonMs);
      const burst = this.random.chance(0.2) ? this.random.int(2, 8) : 1;
      this.scheduler.at(at, 'io', 'workload', () => {
        for (let j = 0; j < burst; j++) this.issue(client);
      });
    }
  }

  /** Operations not settled yet; `bounded`: only those with a deadline (timeout 0 and blocking ones wait for close()). */
  pending(bounded = false): number {
    return this.ops.filter((op) => op.outcome === undefined && (!bounded || op.timeoutMs > 0)).length;
  }

  private issue(client: RespireClient): void {
    const r = this.random;
    const roll = r.next();
    if (roll < 0.1) this.batch(client);
    else if (roll < 0.18) this.transaction(client);
    else if (roll < 0.24 && this.settings.blocking) this.blpop(client);
    else if (roll < 0.28) this.watched(client);
    else if (roll < 0.34) this.publish(client);
    else this.single(client);
  }

  /** Per-command options: a timeout, a signal that may abort, fire-and-forget. */
  private options(allowFireAndForget: boolean): {
    options: { timeout?: number; signal?: AbortSignal; fireAndForget?: boolean };
    timeoutMs: number;
    abort: ((op: Op) => void) | undefined;
  } {
    const r = this.random;
    const options: { timeout?: number; signal?: AbortSignal; fireAndForget?: boolean } = {};
    let timeoutMs = this.settings.commandTimeout;
    const t = r.next();
    if (t < 0.1) timeoutMs = options.timeout = 0;
    else if (t < 0.3) timeoutMs = options.timeout = r.int(1, 300);
    if (allowFireAndForget && r.chance(0.08)) options.fireAndForget = true;
    let abort: ((op: Op) => void) | undefined;
    if (r.chance(0.1)) {
      const controller = new AbortController();
      options.signal = controller.signal;
      const delay = r.chance(0.2) ? 0 : r.next() * 200;
      abort = (op) =>
        this.scheduler.after(delay, `abort op ${op.id}`, () => {
          if (op.outcome === undefined) op.abortedAt = this.scheduler.now();
          controller.abort(new Error(`aborted op ${op.id}`));
        });
    }
    return { options, timeoutMs, abort };
  }

  private record(
    kind: string,
    promise: Promise<unknown>,
    fields: Pick<Op, 'writes' | 'timeoutMs' | 'fireAndForget' | 'check'> &
      Partial<Pick<Op, 'key' | 'extraMs' | 'acknowledges' | 'noReplyDeadline'>>,
  ): Op {
    const op: Op = {
      id: this.nextId++,
      kind,
      start: this.scheduler.now(),
      noReplyDeadline: fields.timeoutMs === 0,
      ...fields,
    };
    this.ops.push(op);
    this.scheduler.trace(`op ${op.id} ${kind} issued`);
    promise.then(
      (value) => this.settle(op, { ok: true, value }),
      (error) => this.settle(op, { ok: false, error }),
    );
    return op;
  }

  private settle(op: Op, outcome: Outcome): void {
    op.outcome = outcome;
    op.end = this.scheduler.now();
    const what = outcome.ok
      ? JSON.stringify(outcome.value)
      : String((outcome.error as Error)?.message ?? outcome.error);
    this.scheduler.trace(`op ${op.id} ${op.kind} ${outcome.ok ? 'ok' : 'failed'}: ${what?.slice(0, 120)}`);
  }

  private key(): string {
    return `k${this.random.int(0, KEYS - 1)}`;
  }

  /** A key drawn for op `id`'s write and the value `v<id>` it writes there, recorded for reads. */
  private freshWrite(id: number): { key: string; token: string } {
    const key = this.key();
    const token = `v${id}`;
    this.tokens.keyOf.set(token, key);
    return { key, token };
  }

  private single(client: RespireClient): void {
    const { options, timeoutMs, abort } = this.options(true);
    const id = this.nextId;
    const fireAndForget = options.fireAndForget === true;
    const r = this.random.next();
    let op: Op;
    if (r < 0.3) {
      const { key, token } = this.freshWrite(id);
      op = this.record('SET', client.set(key, token, options), {
        writes: [token],
        timeoutMs,
        fireAndForget,
        check: expectOk(fireAndForget),
      });
    } else if (r < 0.5) {
      const key = this.key();
      op = this.record('GET', client.get(key, { ...options, fireAndForget: undefined }), {
        writes: [],
        timeoutMs,
        fireAndForget: false,
        key,
        check: (value) => this.readOf(key, value),
      });
    } else if (r < 0.65) {
      op = this.record('INCRBY', client.incrby(`c${id}`, id, options), {
        writes: [`c${id}`],
        timeoutMs,
        fireAndForget,
        check: (value) => (fireAndForget ? undefinedOr(value) : value === id ? undefined : `expected ${id}`),
      });
    } else if (r < 0.8) {
      op = this.record('ECHO', client.send(['ECHO', `e${id}`], { ...options, fireAndForget: undefined }), {
        writes: [],
        timeoutMs,
        fireAndForget: false,
        check: (value) => (value === `e${id}` ? undefined : `expected e${id}`),
      });
    } else if (r < 0.9) {
      op = this.record('XADD', client.send(['XADD', 'stream', '*', 'f', `x${id}`], options), {
        writes: [`x${id}`],
        timeoutMs,
        fireAndForget,
        check: (value) =>
          fireAndForget
            ? undefinedOr(value)
            : typeof value === 'string' && /^\d+-\d+$/.test(value)
              ? undefined
              : 'expected a stream id',
      });
    } else {
      op = this.record('DEL', client.del(`d${id}`, options), {
        writes: [],
        timeoutMs,
        fireAndForget,
        check: (value) => (fireAndForget ? undefinedOr(value) : value === 0 ? undefined : 'expected 0'),
      });
    }
    abort?.(op);
  }

  /** A GET's value: null, or a value some SET wrote to this very key. */
  private readOf(key: string, value: unknown): string | undefined {
    if (value === null) return undefined;
    if (typeof value !== 'string' || this.tokens.keyOf.get(value) !== key) return `not a value of ${key}`;
    return undefined;
  }

  private batch(client: RespireClient): void {
    const batch = client.batch();
    const n = this.random.int(1, 6);
    for (let i = 0; i < n; i++) {
      const { options, timeoutMs, abort } = this.options(false);
      const id = this.nextId;
      let op: Op;
      if (this.random.chance(0.5)) {
        const { key, token } = this.freshWrite(id);
        op = this.record('batch SET', batch.set(key, token, options), {
          writes: [token],
          timeoutMs,
          fireAndForget: false,
          check: expectOk(false),
        });
      } else {
        op = this.record('batch ECHO', batch.send(['ECHO', `e${id}`], options), {
          writes: [],
          timeoutMs,
          fireAndForget: false,
          check: (value) => (value === `e${id}` ? undefined : `expected e${id}`),
        });
      }
      abort?.(op);
    }
    void batch.tryExecute();
  }

  private transaction(client: RespireClient): void {
    const tx = client.multi();
    const id = this.nextId;
    const { key, token } = this.freshWrite(id);
    void tx.set(key, token);
    void tx.incrby(this.settings.hashTags === true ? `c${id}{${key}}` : `c${id}`, id);
    const { options, timeoutMs, abort } = this.options(false);
    const op = this.record('MULTI', tx.exec({ timeout: options.timeout, signal: options.signal }), {
      writes: [token, `c${id}`],
      timeoutMs,
      fireAndForget: false,
      check: (value) =>
        Array.isArray(value) && value[0] === 'OK' && value[1] === id ? undefined : `expected ['OK', ${id}]`,
    });
    abort?.(op);
  }

  /**
   * WATCH on a dedicated connection, then MULTI/SET/EXEC there: null when the key changed meanwhile
   * (then the SET must not have run). Two round trips, after a connection that may need opening.
   */
  private watched(client: RespireClient): void {
    const id = this.nextId;
    const { key, token } = this.freshWrite(id);
    const run = async (): Promise<unknown> => {
      const session = await client.watch(key);
      try {
        const tx = session.multi();
        void tx.set(key, token);
        return await tx.exec();
      } finally {
        await session.release();
      }
    };
    this.record('WATCH', run(), {
      writes: [token],
      timeoutMs: 2 * this.settings.commandTimeout,
      extraMs: this.settings.connectTimeout,
      fireAndForget: false,
      acknowledges: (value) => value !== null,
      check: (value) =>
        value === null || (Array.isArray(value) && value[0] === 'OK') ? undefined : "expected null or ['OK']",
    });
  }

  /** PUBLISH of a unique message on the channel the subscriber listens to (see `subscribe`). */
  private publish(client: RespireClient): void {
    const id = this.nextId;
    this.record('PUBLISH', client.publish(CHANNEL, `m${id}`), {
      writes: [`m${id}`],
      timeoutMs: this.settings.commandTimeout,
      fireAndForget: false,
      // The server counts a subscriber connection it cannot know is gone (black-holed, or left
      // behind when the subscription moved to another node): only `heard` is checked for once.
      check: (value) => (Number.isInteger(value) && (value as number) >= 0 ? undefined : 'expected a count'),
    });
  }

  /** Messages the subscriber heard, in order. */
  readonly heard: { message: string; channel: string }[] = [];

  /** Subscribes once, at the start; messages are checked against the server's PUBLISH order. */
  subscribe(client: RespireClient): void {
    this.record(
      'SUBSCRIBE',
      client.subscribe(CHANNEL, (message, channel) => {
        this.heard.push({ message: String(message), channel: String(channel) });
        this.scheduler.trace(`heard ${String(message)} on ${channel}`);
      }),
      {
        writes: [],
        // Its confirmation has commandTimeout, but a subscribe may wait for the connection to be
        // restored, unbounded: it is checked for settling, not for a bound.
        timeoutMs: 0,
        noReplyDeadline: false,
        fireAndForget: false,
        check: (value) => (value === undefined ? undefined : 'expected undefined'),
      },
    );
  }

  /** A blocking pop, maybe fire-and-forget, and the push that may feed it. */
  private blpop(client: RespireClient): void {
    const list = `l${this.random.int(0, 1)}`;
    const seconds = this.random.chance(0.2) ? 0 : this.random.int(1, 2);
    const fireAndForget = this.random.chance(0.2);
    const id = this.nextId;
    this.record('BLPOP', client.send(['BLPOP', list, String(seconds)], { fireAndForget }), {
      writes: [],
      timeoutMs: 0,
      fireAndForget,
      key: list,
      check: (value) => {
        if (fireAndForget) return undefinedOr(value);
        if (value === null) return seconds === 0 ? 'BLPOP 0 answered null' : undefined;
        if (!Array.isArray(value) || value[0] !== list || this.tokens.keyOf.get(String(value[1])) !== list) {
          return `not an item of ${list}`;
        }
        return undefined;
      },
    });
    if (this.random.chance(0.7)) {
      const token = `p${id + 1}`;
      this.tokens.keyOf.set(token, list);
      const at = this.random.next() * 300;
      this.scheduler.after(at, 'push', () =>
        this.record('RPUSH', client.rpush(list, token), {
          writes: [token],
          timeoutMs: this.settings.commandTimeout,
          fireAndForget: false,
          check: (value) => (typeof value === 'number' && value >= 1 ? undefined : 'expected a length'),
        }),
      );
    }
  }
}

function expectOk(fireAndForget: boolean): (value: unknown) => string | undefined {
  return (value) => (fireAndForget ? undefinedOr(value) : value === 'OK' ? undefined : "expected 'OK'");
}

function undefinedOr(value: unknown): string | undefined {
  return value === undefined ? undefined : 'fire-and-forget resolved with a value';
}
