// RespireFailoverGroup (API.md "Failover group", issue 14): several deployments, one client. The
// active member is the healthy one with the highest weight (the first listed among equals); health
// is the members' own probes (health-prober.ts, probe-circuit.ts). When the active member turns
// unhealthy the group switches to the best healthy one; once a higher-weight member has been healthy
// for `failbackDelay` (counted from the later of its recovery and the last switch), it fails back;
// `switchTo(name)` switches by hand. What moves on a switch is member-switch.ts.
import type { CacheFront } from '../client/cache/cache-front.js';
import { ClientCore } from '../client/client-core.js';
import { resolveOptions } from '../client/options.js';
import { PubSubErrors } from '../client/pubsub/pubsub-errors.js';
import type { PubSubErrorListener } from '../client/pubsub/subscriber.js';
import { RespireConfigurationError, RespireConnectionError } from '../errors.js';
import { routerFor } from '../respire-client.js';
import type { Clock } from '../util/clock.js';
import { rethrowAsync } from '../util/rethrow-async.js';
import { FailoverTelemetry, type SwitchReason } from './failover-metrics.js';
import { FailoverRouter, type MemberSource } from './failover-router.js';
import { HealthProber } from './health-prober.js';
import { Member } from './member.js';
import { handOver } from './member-switch.js';
import {
  type ResolvedGroupOptions,
  type RespireFailoverGroupOptions,
  resolveGroupOptions,
} from './options.js';
import { ProbeCircuit } from './probe-circuit.js';

export type { SwitchReason } from './failover-metrics.js';

/** Told after each switch, once the new member is active. */
export type FailoverSwitchListener = (from: string, to: string, reason: SwitchReason) => void;

/**
 * The group's client: every typed helper, batch, transaction, WATCH session, view and pub/sub of
 * RespireClient, always on the active member. Its `commandTimeout` and `retry` are those of the
 * member that was active when the group connected. It reads through the active member's
 * client-side cache, when that member sets `clientSideCache`.
 */
export class RespireFailoverClient extends ClientCore {
  /** @internal Use `RespireFailoverGroup.connect`. */
  constructor(
    private readonly group: RespireFailoverGroup,
    router: FailoverRouter,
    private readonly groupPubSubListeners: Set<PubSubErrorListener>,
    private readonly switchErrors: PubSubErrors,
  ) {
    const active = group.activeMember;
    // No client-side cache of its own: only the members' tracking connections hear invalidations,
    // and each for its own cache (the `cache` getter below).
    super(
      { ...active.resolved, circuitBreaker: null, clientSideCache: null, ...group.metricOptions },
      () => router,
    );
  }

  /**
   * The active member's cache: its tracking connections invalidate it, it holds that deployment's
   * values only, and another member's cache is never read (a switch changes caches at once).
   */
  protected override get cache(): CacheFront | undefined {
    return this.group.activeMember.client?.memberCache;
  }

  /** Hears pub/sub errors of every member (present and future) and of switches. */
  override onPubSubError(listener: PubSubErrorListener): () => void {
    this.groupPubSubListeners.add(listener);
    const removers = this.members().map((client) => client.onPubSubError(listener));
    removers.push(this.switchErrors.add(listener));
    return () => {
      this.groupPubSubListeners.delete(listener);
      for (const remove of removers) remove();
    };
  }

  private members(): ClientCore[] {
    return (this.router as FailoverRouter).openClients();
  }
}

/**
 * Several deployments behind one client (API.md "Failover group"): commands go to the active
 * member, the healthy one with the highest weight, and move when it turns unhealthy, when a
 * higher-weight member has been healthy for `failbackDelay`, or on `switchTo`. Made by
 * `RespireFailoverGroup.connect`.
 */
export class RespireFailoverGroup implements MemberSource {
  /** @internal Every member, in the order the options list them. */
  readonly members: readonly Member[];
  /** The client whose commands go to the active member; use it as a RespireClient. */
  readonly client: RespireFailoverClient;
  /** @internal The member commands go to. */
  activeMember: Member;
  private readonly probers: HealthProber[];
  private readonly listeners = new Set<FailoverSwitchListener>();
  /** Switches whose listeners are being told (the first) or wait their turn (tell()). */
  private readonly untold: Parameters<FailoverSwitchListener>[] = [];
  private readonly pubSubErrorListeners = new Set<PubSubErrorListener>();
  /** Subscriptions a switch could not make again (member-switch.ts), told to the same listeners. */
  private readonly switchErrors = new PubSubErrors();
  private readonly telemetry: FailoverTelemetry;
  private readonly failbackDelay: number;
  /** The first member's clock: probe streaks and the failback delay are counted on it. */
  private readonly clock: Clock;
  private switchedAt: number;
  private closing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly options: ResolvedGroupOptions,
    members: Member[],
    active: Member,
  ) {
    this.members = members;
    this.activeMember = active;
    this.failbackDelay = options.failbackDelay;
    this.clock = members[0]!.resolved.clock;
    this.switchedAt = this.clock.now();
    this.telemetry = new FailoverTelemetry(
      options,
      members.map((member) => member.name),
      () => this.activeMember.name,
    );
    this.client = new RespireFailoverClient(
      this,
      new FailoverRouter(this),
      this.pubSubErrorListeners,
      this.switchErrors,
    );
    this.probers = members.map(
      (member, i) =>
        new HealthProber(
          member.name,
          options.members[i]!.options,
          options.healthCheck,
          member.resolved.clock,
          (ok) => this.onProbe(member, ok),
          member.resolved.maintenanceRelaxedTimeout,
          () => member.client?.inMaintenance === true,
        ),
    );
    for (const prober of this.probers) prober.start();
  }

  /**
   * Opens every member's client; resolves once they all settled, with the best member that opened
   * active. Members that could not connect are unhealthy until their probes recover them. Rejects
   * with RespireConfigurationError for invalid options (a member's own named under
   * `members[i].options.`), and with RespireConnectionError when no member could connect.
   */
  static async connect(options: RespireFailoverGroupOptions): Promise<RespireFailoverGroup> {
    const resolved = resolveGroupOptions(options);
    const { healthCheck } = resolved;
    const configs = resolved.members.map((config, i) => memberOptions(config.options, i));
    const now = configs[0]!.clock.now();
    const members = resolved.members.map(
      (config, i) =>
        new Member(
          config,
          configs[i]!,
          new ProbeCircuit(healthCheck.failuresToSwitch, healthCheck.successesToRecover, false, now),
        ),
    );
    const opened = await Promise.allSettled(members.map((member) => member.open()));
    for (const member of members) if (member.client !== undefined) member.circuit.markHealthy(now);
    const active = best(members);
    if (active === undefined) {
      const reasons = opened.map((outcome, i) =>
        outcome.status === 'rejected' ? `${members[i]!.name}: ${String(outcome.reason)}` : '',
      );
      throw new RespireConnectionError(
        `no member of the failover group could connect (${reasons.join('; ')})`,
        {
          cause: new AggregateError(opened.map((outcome) => (outcome as PromiseRejectedResult).reason)),
          written: false,
        },
      );
    }
    return new RespireFailoverGroup(resolved, members, active);
  }

  /** The active member's name. */
  get active(): string {
    return this.activeMember.name;
  }

  /** @internal The group's meter, for its client's `redis.client.errors` and retries. */
  get metricOptions(): Pick<ResolvedGroupOptions, 'meter' | 'metricGroups'> {
    return { meter: this.options.meter, metricGroups: this.options.metricGroups };
  }

  /** Listens to switches; returns the function that stops listening. */
  onSwitch(listener: FailoverSwitchListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Makes `name` the active member now. Automatic rules still apply: an unhealthy member is left
   * at the next probe, and a higher-weight one fails back after `failbackDelay` from this switch.
   * @throws RespireConfigurationError for an unknown name; RespireConnectionError for a member
   * that has never connected, or once the group is closed (or destroyed).
   */
  switchTo(name: string): void {
    const member = this.members.find((candidate) => candidate.name === name);
    if (member === undefined) {
      const names = this.members.map((candidate) => candidate.name).join(', ');
      throw new RespireConfigurationError('name', name, `the name of a member (${names})`);
    }
    if (this.closed) throw new RespireConnectionError('the failover group is closed', { written: false });
    if (member.client === undefined) {
      throw new RespireConnectionError(`failover member ${name} has not connected yet`, { written: false });
    }
    if (member !== this.activeMember) this.switch(member, 'manual');
  }

  /** Stops the probes and closes every member, waiting for replies in flight. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Stops the probes and closes every member at once; what is pending rejects. */
  destroy(): void {
    this.closed = true;
    for (const prober of this.probers) prober.destroy();
    for (const member of this.members) {
      member.giveUpOpening();
      member.client?.destroy();
    }
  }

  /** `await using` support: the same as `close()`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    for (const member of this.members) member.giveUpOpening();
    await Promise.all([
      ...this.probers.map((prober) => prober.close()),
      ...this.members.map((member) => member.client?.close()),
    ]);
  }

  private onProbe(member: Member, ok: boolean): void {
    if (this.closed) return;
    if (!ok) this.telemetry.probeFailed(member.name);
    member.circuit.record(ok, this.clock.now());
    if (member.circuit.healthy && member.client === undefined) {
      // Down when the group connected: its data client opens now that its probes pass.
      member.open().then((client) => {
        if (this.closed) client.destroy();
        else for (const listener of this.pubSubErrorListeners) client.onPubSubError(listener);
      }, ignore);
    }
    this.evaluate();
  }

  /** Applies the rules of the file comment after a probe. */
  private evaluate(): void {
    const active = this.activeMember;
    const next = best(this.members);
    if (next === undefined || next === active) return;
    if (!active.available) {
      this.switch(next, 'unhealthy');
      return;
    }
    const healthyFor = this.clock.now() - Math.max(next.circuit.healthySince, this.switchedAt);
    if (next.weight > active.weight && healthyFor >= this.failbackDelay) this.switch(next, 'failback');
  }

  private switch(to: Member, reason: SwitchReason): void {
    const from = this.activeMember;
    // Committed before anything moves or any listener runs: new commands already go to `to`.
    this.activeMember = to;
    this.switchedAt = this.clock.now();
    handOver(
      from.client!,
      to,
      from.name,
      (error, event) => this.switchErrors.report(error, event),
      (entries) => this.client.placeTransaction(entries),
      () => (this.closed || this.activeMember === from ? undefined : this.activeMember),
    );
    this.telemetry.switched(from.name, to.name, reason);
    this.tell([from.name, to.name, reason]);
  }

  /**
   * Tells the listeners of a switch. A listener may switch again (switchTo): that switch is told
   * once every listener heard this one, so each hears the switches in the order they happened.
   */
  private tell(change: Parameters<FailoverSwitchListener>): void {
    this.untold.push(change);
    if (this.untold.length > 1) return; // a listener of an earlier switch is running: it comes next
    while (this.untold.length > 0) {
      const [from, to, reason] = this.untold[0]!;
      for (const listener of [...this.listeners]) {
        try {
          listener(from, to, reason);
        } catch (error) {
          rethrowAsync(error);
        }
      }
      this.untold.shift();
    }
  }
}

/** The available member with the highest weight, the first listed among equals. */
function best(members: readonly Member[]): Member | undefined {
  let chosen: Member | undefined;
  for (const member of members) {
    if (member.available && (chosen === undefined || member.weight > chosen.weight)) chosen = member;
  }
  return chosen;
}

/** A member's own options, validated as RespireClient's; an error names `members[i].options.…`. */
function memberOptions(options: Parameters<typeof resolveOptions>[0], index: number) {
  try {
    const resolved = resolveOptions(options);
    routerFor(resolved); // checks Sentinel options now, not when the member connects
    return resolved;
  } catch (error) {
    if (!(error instanceof RespireConfigurationError)) throw error;
    const option = `members[${index}].options.${error.option}`;
    throw new RespireConfigurationError(option, error.value, error.allowed, { cause: error });
  }
}

function ignore(): void {}
