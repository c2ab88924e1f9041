// What moves when a failover group switches members (issue 14 "Switching"; seed 000 "Retries": "a
// failover group's new active member"). Commands the old member has not accepted (never written)
// move to the new member and are admitted there by its circuit, keeping their acquire deadline, so
// none waits longer than it would have; so do a Cluster member's commands in no node's queue
// (Router.takeHeld: waiting out a TRYAGAIN or CLUSTERDOWN backoff, a key lookup, a refresh), and an
// ASK's ASKING and attempt move as the caller's one command. Written commands stay and finish or
// fail where they are, never replayed. Blocking commands held while the old member is unreachable
// (blocking-hold.ts) move too, and one still waiting for its dedicated connection goes, once the
// wait ends, to the member active then (staying if that is its own again). A transaction nothing
// of which is written (or whose EXEC a TRYAGAIN aborted) moves whole, steps in order, to where the
// new member puts its keys (its parts are never split across members or routed one by one). A
// cache miss that moves is answered by the new member but not stored in the old member's cache,
// which only that member's connections invalidate; a write that moves drops its keys from the new
// member's cache, as the group client's writes do from the active member's.
// WATCH sessions of the old member end with an error saying why, and so do a WATCH, a durability
// batch or a stream still borrowing a connection there; subscribes still waiting for the old
// member's subscriber connection are made on the new member instead; confirmed subscriptions are made
// again on the new member and dropped from the old one. A subscribe still unconfirmed there follows
// once the old member confirmed it, to the member then active (its caller's promise is the old
// member's: it resolves there, or rejects with that member's error); dropping only the names that
// move keeps the old member from unsubscribing it in between, which left it subscribed nowhere.
import { CachedRead } from '../client/cache/cached-read.js';
import { AskingPrefix } from '../client/node/asking-prefix.js';
import type { PubSubErrorEvent, PubSubListener, SubscriptionKind } from '../client/pubsub/subscriber.js';
import type { TransactionPlacer } from '../client/transactions/transaction-run.js';
import { ClusterAttempt } from '../cluster/cluster-attempt.js';
import { RespireConnectionError } from '../errors.js';
import { type Command, CommandFlags } from '../transport/command.js';
import type { Member, MemberClient } from './member.js';

/** Told when a subscription could not be made again on the new member (`source: 'restore'`). */
export type SwitchPubSubReporter = (error: unknown, event: PubSubErrorEvent) => void;

export function handOver(
  from: MemberClient,
  to: Member,
  fromName: string,
  report: SwitchPubSubReporter,
  placeTransaction: TransactionPlacer,
  /** Where subscriptions the old member confirms later go: none once the group is closed or back on it. */
  laterTarget: () => Member | undefined,
): void {
  const target = to.client!;
  const router = target.memberRouter;
  const ended = new RespireConnectionError(
    `the failover group switched from ${fromName} to ${to.name}: this WATCH session ended; watch again`,
    { endpoint: from.endpoint, written: false },
  );
  const left = new RespireConnectionError(
    `the failover group switched from ${fromName} to ${to.name} while a connection was being borrowed on ${fromName}: nothing was sent; try again`,
    { endpoint: from.endpoint, written: false },
  );
  // A transaction moves whole to the active member, `target` (moveTo says why its cache is told).
  const place: TransactionPlacer = (entries) => {
    for (const entry of entries) target.memberCache?.cache.sending(entry);
    return placeTransaction(entries);
  };
  // Waiting out a Cluster backoff (answered TRYAGAIN or CLUSTERDOWN: nothing of it ran).
  for (const command of from.memberRouter.takeHeld?.(place) ?? []) moveTo(target, uncovered(command));
  // A blocking command waiting for its connection goes once the wait ends: to the member active
  // then (a later switch may have changed it; back on `from`, keepBlocking keeps it there).
  const forward = (command: Command<unknown>) =>
    moveTo(laterTarget()?.client ?? target, callerCommand(command));
  for (const node of target.nodes) node.keepBlocking();
  for (const node of from.nodes) {
    for (const command of node.main.takeUnwritten(outsideTransaction)) {
      // An ASK's ASKING goes with its attempt: the caller's command moves once, without it.
      if (command instanceof AskingPrefix) command.resolve(null);
      else moveTo(target, callerCommand(command));
    }
    node.moveHeldBlocking(forward);
    node.leave(left);
    node.transactions.moveUnwritten(node.main, place);
    node.sessions.endAll(ended);
  }
  moveSubscriptions(from, target, to.name, report);
  for (const node of from.memberRouter.subscriberNodes()) {
    node.subscriber.moveUnwritten(async (kind, entries) => {
      const names = entries.flatMap((entry) => entry.names);
      const next = router.subscriberNode(kind, names);
      if (next instanceof Error) throw next;
      await next.subscriber.subscribeAll(kind, entries);
    });
  }
  const pending = from.memberRouter
    .subscriberNodes()
    .flatMap((node) => node.subscriber.whenPendingSettle() ?? []);
  if (pending.length === 0) return;
  Promise.all(pending).then(() => {
    const later = laterTarget();
    if (later?.client !== undefined) moveSubscriptions(from, later.client, later.name, report);
  });
}

/**
 * Read your writes on the member a command moves to, as on the one it leaves (client-core.ts
 * `route`): what it may write leaves that member's cache as it is sent and as it settles, before
 * the member's tracking connection says so (its invalidation can come after the write's reply).
 */
function moveTo(member: MemberClient, command: Command<unknown>): void {
  member.memberCache?.cache.sending(command);
  member.memberRouter.send(command);
}

/**
 * MULTI and the steps behind it move with their transaction (TransactionRun.moveWhole), not one by
 * one. A Cluster attempt behind ASKING is marked as a step (its ASKING admits it) but is no part
 * of a transaction: it and its ASKING are taken.
 */
function outsideTransaction(command: Command<unknown>): boolean {
  if (command instanceof ClusterAttempt || command instanceof AskingPrefix) return true;
  return (command.flags & CommandFlags.TransactionStep) === 0 && command.name !== 'MULTI';
}

/**
 * A Cluster member queues an attempt of the caller's command (cluster-attempt.ts): the attempt
 * ends quietly and the caller's command itself goes to the new member.
 */
function callerCommand(command: Command<unknown>): Command<unknown> {
  if (!(command instanceof ClusterAttempt)) return uncovered(command);
  command.abandon();
  return uncovered(command.origin);
}

/**
 * A cache miss holds a placeholder in the old member's cache, which only that member's tracking
 * connections invalidate: the new member's reply is not stored there (it answers the caller only).
 */
function uncovered(command: Command<unknown>): Command<unknown> {
  if (command instanceof CachedRead) command.detach();
  return command;
}

const SUBSCRIBE: Readonly<Record<SubscriptionKind, 'subscribe' | 'psubscribe' | 'ssubscribe'>> = {
  channel: 'subscribe',
  pattern: 'psubscribe',
  shard: 'ssubscribe',
};

/** Confirmed subscriptions move: one subscribe per kind and listener, with all its names. */
function moveSubscriptions(
  from: MemberClient,
  to: MemberClient,
  toName: string,
  report: SwitchPubSubReporter,
): void {
  const moved = new Map<SubscriptionKind, Map<PubSubListener, string[]>>();
  for (const node of from.memberRouter.subscriberNodes()) {
    const taken = new Map<SubscriptionKind, string[]>();
    for (const { kind, name, listeners } of node.subscriber.confirmedSubscriptions()) {
      const byListener = moved.get(kind) ?? new Map<PubSubListener, string[]>();
      moved.set(kind, byListener);
      for (const listener of listeners) byListener.set(listener, [...(byListener.get(listener) ?? []), name]);
      taken.set(kind, [...(taken.get(kind) ?? []), name]);
    }
    // Only the names that move: a subscribe still unconfirmed there is left to settle (above).
    for (const [kind, names] of taken) node.subscriber.unsubscribe(kind, names).catch(ignore);
  }
  for (const [kind, byListener] of moved) {
    for (const [listener, names] of byListener) {
      to[SUBSCRIBE[kind]](names, listener).catch((error: unknown) =>
        report(
          new RespireConnectionError(`the failover group could not subscribe again on ${toName}`, {
            endpoint: to.endpoint,
            cause: error,
            written: false,
          }),
          { source: 'restore', kind, names },
        ),
      );
    }
  }
}

function ignore(): void {}
