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
import type { EndpointNode } from '../node/endpoint-node.js';
import { MAX_TIMEOUT_MS, prepareCommand } from '../prepare-command.js';
import { refusedCommand } from '../refused-commands.js';
import {
  type Acknowledgement,
  acknowledgementOf,
  type DurableOptions,
  type DurableReport,
  reportOf,
} from './durable-report.js';

export type { DurableOptions };

/** What a durability batch needs from the client. */
export interface DurableSettings {
  /** Reply deadline of the writes (`commandTimeout`), and slack on top of the acknowledgement's wait. */
  readonly commandTimeout: number;
  /** The node the writes' keys belong to, or the error that fails them all (CROSSSLOT). */
  readonly place: (writes: readonly Command<unknown>[]) => EndpointNode | Error;
  readonly errorSink: ((error: unknown) => void) | undefined;
  /** Drops what a write may have changed from the client-side cache (the writes skip its path). */
  readonly wrote: (args: readonly RespArgument[]) => void;
}

/**
 * A Commander whose typed helpers queue writes; each returns a promise of that write's own reply.
 * `execute()` runs them once and resolves with the report (it does not reject for a failed write or
 * acknowledgement: the report says what happened to each).
 */
export class DurableBatch extends Commander {
  /** Writes are sent only by `execute()` (commands/caller.ts). */
  readonly queuesCommands = true;
  private readonly writes: Command<unknown>[] = [];
  private started = false;
  private readonly acknowledgementArgs: string[];

  /** @internal Use `redis.durable(options)`. */
  constructor(
    private readonly options: DurableOptions,
    private readonly settings: DurableSettings,
  ) {
    super();
    this.acknowledgementArgs = acknowledgementArguments(options);
  }

  /** Writes queued so far. */
  get length(): number {
    return this.writes.length;
  }

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags = 0,
  ): Promise<T> {
    if (this.started) {
      return Promise.reject(new TypeError('the durability batch has already run; queue writes on a new one'));
    }
    const command = prepareCommand(
      args,
      transform,
      options,
      flags,
      this.settings.commandTimeout,
      this.settings.errorSink,
    );
    const refusal = refusedCommand(args);
    if (refusal !== undefined) command.reject(refusal);
    // A write nobody awaits must not surface as an unhandled rejection: the report has it.
    command.promise.catch(ignore);
    this.writes.push(command as Command<unknown>);
    return command.promise;
  }

  /**
   * Sends the writes, then (when every write succeeded) WAIT or WAITAOF on the same connection, and
   * resolves with the report. An empty batch sends nothing. Rejects only when it already ran.
   */
  async execute(): Promise<DurableReport> {
    if (this.started) throw new TypeError('a durability batch runs once; this one has already been executed');
    this.started = true;
    const writes = this.writes;
    if (writes.length === 0) return reportOf([], [], undefined, this.options);
    const live = writes.filter((write) => !write.settled);
    const node = live.length === 0 ? undefined : this.settings.place(live);
    let channel: Channel | undefined;
    if (node instanceof Error) {
      for (const write of live) write.reject(node);
    } else if (node !== undefined) {
      try {
        channel = await node.lender.acquire();
        for (const write of live) channel.enqueue(write);
      } catch (error) {
        // No connection (the circuit refused it, or none could be opened): nothing was sent.
        for (const write of live) write.reject(error);
      }
    }
    const outcomes = await Promise.all(writes.map(settledOutcome));
    // Read your writes: by the time the report is out, what the writes changed has left the cache.
    for (const write of live) this.settings.wrote(write.args);
    let acknowledgement: Acknowledgement | Error;
    const failed = outcomes.findIndex((outcome) => outcome.failed);
    if (failed !== -1 || channel === undefined) {
      acknowledgement = new RespireError(
        `${this.acknowledgementArgs[0]} was not sent: write ${failed} failed, so the batch's writes are not acknowledged`,
        { cause: outcomes[failed]?.error },
      );
    } else {
      acknowledgement = await this.acknowledge(channel, writes.length);
    }
    if (channel !== undefined && node !== undefined && !(node instanceof Error)) {
      if (channel.current !== undefined) node.lender.release(channel);
      else node.lender.discard(channel);
    }
    return reportOf(writes, outcomes, acknowledgement, this.options);
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
  if (aofLocal === undefined && aofReplicas === undefined) return ['WAIT', String(replicas), String(timeout)];
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

function ignore(): void {}
