// Where the client meets its cache (client-core.ts): the cache and its meter, a call's answer
// from an entry, and the command record of a miss with its key's placeholder.
import type { RespireEndpoint } from '../../errors.js';
import type { RespArgument } from '../../resp/encoder.js';
import {
  type Command,
  CommandFlags,
  type CommandOptions,
  type ReplyTransform,
} from '../../transport/command.js';
import type { Clock } from '../../util/clock.js';
import type { ClientTelemetry } from '../metrics.js';
import { isTimeout, prepareCommand } from '../prepare-command.js';
import { CacheMeter } from './cache-meter.js';
import type { ResolvedCacheOptions } from './cache-options.js';
import { CachedRead } from './cached-read.js';
import { answerFromCache } from './cached-values.js';
import { ClientSideCache } from './client-side-cache.js';

export class CacheFront {
  readonly cache: ClientSideCache;
  private readonly meter: CacheMeter;

  constructor(
    options: ResolvedCacheOptions,
    clock: Clock,
    telemetry: ClientTelemetry,
    endpoint: () => RespireEndpoint,
  ) {
    this.cache = new ClientSideCache(options, clock);
    this.meter = new CacheMeter(this.cache, telemetry, endpoint, clock);
  }

  /**
   * A hit's answer (seed 000: nothing is sent, so no circuit checks or records it); `true` for a
   * cacheable read with no entry (send it with `prepare`); `false` for a call the cache leaves alone
   * (not cacheable, `withoutCache()`, or options that must fail as they would when sent).
   */
  answer<T>(
    args: readonly RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags: number,
    errorSink: ((error: unknown) => void) | undefined,
  ): Promise<T> | boolean {
    if ((flags & CommandFlags.NoCache) !== 0 || !servable(options)) return false;
    const entry = this.cache.lookup(args);
    if (entry === undefined) return false;
    if (entry === null) return true;
    return answerFromCache(entry.value, transform, options?.fireAndForget === true, errorSink);
  }

  /** The record of a miss (prepare-command.ts), holding its key's placeholder (cached-read.ts). */
  prepare<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
    flags: number,
    timeoutMs: number,
    errorSink: ((error: unknown) => void) | undefined,
  ): Command<T> {
    const command = prepareCommand(
      args,
      transform,
      options,
      flags,
      timeoutMs,
      errorSink,
      undefined,
      0,
      CachedRead,
    );
    if (command.settled) return command;
    const placeholder = this.cache.begin(args);
    if (placeholder !== undefined) (command as CachedRead<T>).attach(this.cache, placeholder);
    return command;
  }

  /** The client closes: the meter's last report. */
  stop(): void {
    this.meter.stop();
  }
}

/** Whether a cache hit may answer a call with these options: not one that must fail as sent. */
function servable(options: CommandOptions | undefined): boolean {
  if (options === undefined) return true;
  if (options.signal?.aborted === true) return false;
  return options.timeout === undefined || isTimeout(options.timeout);
}
