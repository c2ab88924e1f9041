// `redis.durable({ replicas, aofLocal?, aofReplicas?, timeout })` (issue 13 "Durability batches"):
// writes queued like a batch, then sent on one dedicated connection of their keys' node, followed
// on that same connection by WAIT (or WAITAOF), which only counts the writes made on the
// connection it runs on (PROTOCOL.md §6). `execute()` reports, per write, whether it was applied and
// acknowledged, and how many replicas (and AOFs) confirmed it.
//
// Circuit (seed 000 "Durability batches check each write and its WAIT or WAITAOF separately. A
// failed write prevents the acknowledgement; a rejected acknowledgement cannot undo completed
// writes"): every write is admitted on its own right before it is written, and so is the
// acknowledgement, which is sent only once every write succeeded. When the acknowledgement fails
// or is rejected, the report says that the writes were applied and stay applied.
import { RespireConfigurationError, RespireError } from '../../errors.js';
import type { RespArgument } from '../../resp/encoder.js';
import type { RespValue } from '../../resp/types.js';
import type { Channel } from '../../transport/channel.js';
import { Command, type CommandOptions, type ReplyTransform } from '../../transport/command.js';
import { Commander } from '../commander.js';
import { prefixedArgs } from '../key-prefix.js';
import type { DataRedirect } from '../node/data-redirect.js';
import type { EndpointNode } from '../node/endpoint-node.js';
import { MAX_TIMEOUT_MS } from '../prepare-command.js';
import { refusedCommand } from '../refused-commands.js';
import { Batch } from '../transactions/batch.js';
import {
  type Acknowledgement,
  acknowledgementOf,
  type DurableOptions,
  type DurableReport,
  reportOf,
} from './durable-report.js';
import { sendHeldWrites } from './held-writes.js';

export type { DurableOptions };

/** What a durability batch needs from the client. */
export interface DurableSettings {
  /** Reply deadline of the writes (`commandTimeout`), and slack on top of the acknowledgement's wait. */
  readonly commandTimeout: number;
  /** The node the writes' keys belong to, or the error that fails them all (CROSSSLOT). */
  readonly place: (writes: readonly Command<unknown>[]) => EndpointNode | Error;
  readonly errorSink: ((error: unknown) => void) | undefined;
  /**
   * Read your writes (the writes skip the client's send path): drops what a write may change from
   * the client-side cache before it is sent, and again when it settles, before its caller hears.
   */
  readonly sending: (write: Command<unknown>) => void;
  /** A key-prefixed view's prefix, given to every write's keys (key-prefix.ts). */
  readonly prefix: string | Buffer | undefined;
  /** Cluster: where a MOVED or ASK sends writes none of which ran (node/data-redirect.ts). */
  readonly redirect: DataRedirect | undefined;
}

/** Where `execute()` sent the writes: the dedicated connection WAIT must follow them on. */
interface Sent {
  readonly node: EndpointNode;
  readonly channel: Channel;
}

/**
 * A Commander whose typed helpers queue writes; each returns a promise of that write's own reply.
 * The queuing is a Batch's (transactions/batch.ts: per-command options, no unhandled rejections,
 * runs once), dispatched onto one dedicated connection instead of the shared pipeline.
 * `execute()` runs them once and resolves with the report (it does not reject for a failed write or
 * acknowledgement: the report says what happened to each).
 */
export class DurableBatch extends Commander {
  /** Writes are sent only by `execute()` (commands/caller.ts). */
  readonly queuesCommands = true;
  private readonly batch: Batch;
  /** The writes as the batch dispatched them, and where they went; set by `execute()`. */
  private writes: readonly Command<unknown>[] = [];
  private sending: Promise<Sent | undefined> = Promise.resolve(undefined);
  private readonly acknowledgementArgs: string[];

  /** @internal Use `redis.durable(options)`. */
  constructor(
    private readonly options: DurableOptions,
    private readonly settings: DurableSettings,
  ) {
    super();
    this.acknowledgementArgs = acknowledgementArguments(options);
    this.batch = new Batch({
      commandTimeout: settings.commandTimeout,
      errorSink: settings.errorSink,
      dispatch: (writes) => {
        this.writes = writes;
        this.sending = this.sendWrites(writes);
      },
    });
  }

  /** Writes queued so far. */
  get length(): number {
    return this.batch.length;
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    const prefix = this.settings.prefix;
    const keyed = prefix === undefined ? args : prefixedArgs(prefix, args);
    if (keyed instanceof Error) return Promise.reject(keyed);
    // A durable write always waits for its reply: WAIT may follow only writes known to have been
    // applied (seed 000 "A failed write prevents the acknowledgement"), and the report gives each
    // write's reply. `fireAndForget` would resolve it at its write and drop an error reply.
    const waited = options?.fireAndForget === true ? { ...options, fireAndForget: false } : options;
    return this.batch.call(keyed, transform, waited, flags);
  }

  /**
   * Sends the writes, then (when every write succeeded) WAIT or WAITAOF on the same connection, and
   * resolves with the report. An empty batch sends nothing. Rejects only when it already ran.
   */
  async execute(): Promise<DurableReport> {
    const failures = await this.batch.tryExecute();
    const { writes } = this;
    if (writes.length === 0) return reportOf([], [], undefined, this.options);
    const sent = await this.sending;
    const outcomes = await Promise.all(writes.map(settledOutcome));
    let acknowledgement: Acknowledgement | Error;
    if (failures.length !== 0 || sent === undefined) {
      const failed = failures[0];
      acknowledgement = new RespireError(
        `${this.acknowledgementArgs[0]} was not sent: write ${failed?.index} failed, so the batch's writes are not acknowledged`,
        { cause: failed?.error },
      );
    } else {
      acknowledgement = await this.acknowledge(sent.channel, writes.length);
    }
    if (sent !== undefined) {
      if (sent.channel.current !== undefined) sent.node.lender.release(sent.channel);
      else sent.node.lender.discard(sent.channel);
    }
    return reportOf(writes, outcomes, acknowledgement, this.options);
  }

  /**
   * The batch's dispatch: every write still live goes, in order, onto one dedicated connection of
   * their keys' node; each is admitted on its own as it is written. Resolves with where they went.
   */
  private async sendWrites(writes: readonly Command<unknown>[]): Promise<Sent | undefined> {
    for (const write of writes) {
      // SELECT, CLIENT SETNAME … would outlive the batch on a pooled connection (refused-commands.ts).
      const refusal = write.settled ? undefined : refusedCommand(write.args);
      if (refusal !== undefined) write.reject(refusal);
    }
    const live = writes.filter((write) => !write.settled);
    if (live.length === 0) return undefined;
    const node = this.settings.place(live);
    if (node instanceof Error) {
      for (const write of live) write.reject(node);
      return undefined;
    }
    // Each write's own promise may be awaited before execute() resolves: it must read its write.
    for (const write of live) this.settings.sending(write);
    try {
      const channel = await node.lender.acquire();
      const redirect = this.settings.redirect;
      if (redirect !== undefined) return await sendHeldWrites(live, node, channel, redirect);
      for (const write of live) channel.enqueue(write);
      return { node, channel };
    } catch (error) {
      // No connection (the circuit refused it, or none could be opened): nothing was sent.
      for (const write of live) write.reject(error);
      return undefined;
    }
  }

  /** WAIT or WAITAOF on the writes' connection, admitted on its own. */
  private async acknowledge(channel: Channel, count: number): Promise<Acknowledgement | Error> {
    const { timeout } = this.options;
    // Redis ends the wait on its cron, up to REDIS_CRON_LATENESS_MS after `timeout`; the reply
    // deadline allows for that and leaves the usual slack on top. No `commandTimeout`: no deadline.
    const slack = this.settings.commandTimeout;
    const deadlineMs = slack === 0 ? 0 : Math.min(MAX_TIMEOUT_MS, timeout + REDIS_CRON_LATENESS_MS + slack);
    const command = new Command<RespValue>(this.acknowledgementArgs, 0, undefined, undefined, deadlineMs);
    channel.enqueue(command as Command<unknown>);
    try {
      return acknowledgementOf(await command.promise, this.options);
    } catch (error) {
      const name = this.acknowledgementArgs[0]!;
      const message = error instanceof Error ? error.message : String(error);
      return new RespireError(
        `the ${count} writes were applied and cannot be undone, but ${name} failed: ${message}`,
        { cause: error, endpoint: channel.endpoint },
      );
    }
  }
}

/** How late Redis may end a WAIT past its timeout: one cron period at the lowest `hz` (1). */
const REDIS_CRON_LATENESS_MS = 1000;

/** WAIT numreplicas timeout, or WAITAOF numlocal numreplicas timeout; throws on invalid options. */
function acknowledgementArguments(options: DurableOptions): string[] {
  const { replicas, aofLocal, aofReplicas, timeout } = options;
  if (!isCount(replicas)) throw new RespireConfigurationError('replicas', replicas, 'an integer, at least 0');
  if (aofReplicas !== undefined && !isCount(aofReplicas)) {
    throw new RespireConfigurationError('aofReplicas', aofReplicas, 'an integer, at least 0');
  }
  if (aofLocal !== undefined && typeof aofLocal !== 'boolean') {
    throw new RespireConfigurationError('aofLocal', aofLocal, 'a boolean');
  }
  if (!Number.isSafeInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_MS) {
    throw new RespireConfigurationError(
      'timeout',
      timeout,
      `an integer number of ms from 1 through ${MAX_TIMEOUT_MS}`,
    );
  }
  // `aofLocal: false` asks for no AOF confirmation, as leaving it out does: WAIT (any Redis).
  if (aofLocal !== true && aofReplicas === undefined) return ['WAIT', String(replicas), String(timeout)];
  // WAITAOF's replicas have written to their AOF, so they have the writes too: one command asks both.
  const needed = Math.max(replicas, aofReplicas ?? 0);
  return ['WAITAOF', aofLocal === true ? '1' : '0', String(needed), String(timeout)];
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** How one write ended, without rejecting. */
function settledOutcome(
  write: Command<unknown>,
): Promise<{ failed: boolean; value?: unknown; error?: unknown }> {
  return write.promise.then(
    (value) => ({ failed: false, value }),
    (error: unknown) => ({ failed: true, error }),
  );
}
