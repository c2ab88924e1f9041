// Subscribing a new subscriber connection again to everything the server had confirmed (issue 19
// #2, #6): every name, written ahead of anything queued and as the socket drains (channel.ts
// `onConnect`), then checked against the count the server confirms. A command the server refuses
// (a channel permission revoked meanwhile) takes no other name down with it: its names are
// subscribed again one by one, and only those refused on their own are forgotten and reported.
import { type RespireEndpoint, RespireError, RespireServerError } from '../../errors.js';
import { Command, CommandFlags } from '../../transport/command.js';
import type { PubSubErrorEvent } from './pubsub-errors.js';
import {
  SUBSCRIBE_COMMAND,
  SUBSCRIPTION_KINDS,
  type Subscription,
  type SubscriptionKind,
  type SubscriptionRegistry,
} from './pubsub-registry.js';

export interface RestoreContext {
  readonly registry: SubscriptionRegistry;
  readonly endpoint: RespireEndpoint;
  /** Reply deadline of each restore command, ms; 0 = none. */
  readonly commandTimeout: number;
  /**
   * Sends a subscribe command as part of the restore: ahead of what is queued, exempt from the
   * queue bound and the circuit, as the restore itself (channel.ts `writeFirst`); resolves with
   * its count.
   */
  send(kind: SubscriptionKind, names: string[]): Promise<number>;
  report(error: unknown, event: PubSubErrorEvent): void;
}

/** The commands that restore every confirmed subscription, in the order they must be written. */
export function restoreCommands(context: RestoreContext): Command<unknown>[] {
  const all: Command<unknown>[] = [];
  // Redis counts channels and patterns together, shard channels apart.
  const classic: Command<number>[] = [];
  const shard: Command<number>[] = [];
  let classicNames = 0;
  for (const kind of SUBSCRIPTION_KINDS) {
    const entries = context.registry.confirmed(kind);
    if (entries.length === 0) continue;
    if (kind !== 'shard') classicNames += entries.length;
    // In Cluster each SSUBSCRIBE must stay within one slot, so shard channels go one by one.
    const groups = kind === 'shard' ? entries.map((entry) => [entry]) : [entries];
    for (const group of groups) {
      const command = subscriptionCommand(
        SUBSCRIBE_COMMAND[kind],
        group.map((entry) => entry.name),
        context.commandTimeout,
      );
      command.promise.then(
        () => restored(context, group),
        (error: unknown) => restoreFailed(context, kind, group, error),
      );
      (kind === 'shard' ? shard : classic).push(command);
      all.push(command as Command<unknown>);
    }
  }
  checkCount(context, classic, classicNames, 'channel and pattern');
  checkCount(context, shard, shard.length, 'shard channel');
  return all;
}

/** A (P|S)(UN)SUBSCRIBE, complete once every name is confirmed; resolves with the last count. */
export function subscriptionCommand(
  commandName: string,
  names: readonly string[],
  timeoutMs: number,
): Command<number> {
  const command = new Command<number>(
    [commandName, ...names],
    CommandFlags.Subscription,
    undefined,
    undefined,
    timeoutMs,
  );
  command.confirmationsLeft = names.length;
  return command;
}

/**
 * A restore command failed. Lost with its connection: nothing to do, the names are still
 * confirmed and the next connection restores them. Refused by the server: one name is forgotten
 * and reported; several are tried again one by one, so the permitted ones come back.
 */
function restoreFailed(
  context: RestoreContext,
  kind: SubscriptionKind,
  group: readonly Subscription[],
  error: unknown,
): void {
  if (!(error instanceof RespireServerError)) return;
  const { registry } = context;
  const current = group.filter((entry) => registry.isCurrent(kind, entry));
  if (current.length === 0) return;
  if (group.length === 1) {
    // The subscribes waiting for it get the refusal, as for a first SUBSCRIBE.
    registry.restoreSettled(current[0]!, error);
    registry.drop(kind, [current[0]!.name]);
    context.report(error, { source: 'restore', kind, names: [current[0]!.name] });
    return;
  }
  for (const entry of current) {
    context.send(kind, [entry.name]).then(
      () => restored(context, [entry]),
      (single: unknown) => restoreFailed(context, kind, [entry], single),
    );
  }
}

/** The server holds these names again: subscribes waiting for their restore resolve. */
function restored(context: RestoreContext, group: readonly Subscription[]): void {
  for (const entry of group) context.registry.restoreSettled(entry);
}

/** Once every command of one count has been confirmed, the server's count must equal the names sent. */
function checkCount(
  context: RestoreContext,
  commands: readonly Command<number>[],
  expected: number,
  what: string,
): void {
  if (commands.length === 0) return;
  Promise.all(commands.map((command) => command.promise)).then((counts) => {
    const confirmed = counts[counts.length - 1];
    if (confirmed === expected) return;
    const error = new RespireError(
      `after a reconnect the server confirmed ${confirmed} ${what} subscriptions of the ${expected} restored`,
      { endpoint: context.endpoint },
    );
    context.report(error, { source: 'restore', kind: undefined, names: [] });
  }, ignore);
}

function ignore(): void {}
