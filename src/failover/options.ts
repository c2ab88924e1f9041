// RespireFailoverGroup's options (API.md "Failover group", issue 14): the members, each with a
// name, a weight and the full RespireOptions of its own mode, the health check and the failback
// delay. Every invalid option is a RespireConfigurationError naming it (`members`, `members[1].name`,
// `members[0].weight`, `healthCheck.interval`, …); a member's own options are checked by the
// client's own validation when the group connects.
import {
  type ResolvedMetricOptions,
  type RespireMeter,
  type RespireMetricGroup,
  resolveMetricOptions,
} from '../client/metrics.js';
import { integer, type RespireOptions } from '../client/options.js';
import { MAX_TIMEOUT_MS } from '../client/prepare-command.js';
import { RespireConfigurationError } from '../errors.js';
import type { RespireClient } from '../respire-client.js';
import { rejectUnknownOptions } from '../util/unknown-options.js';

/** One deployment of a failover group. */
export interface RespireFailoverMember {
  /** Unique within the group: `group.active`, `switchTo`, `onSwitch` and metrics name it. */
  name: string;
  /** The healthy member with the highest weight is the active one; a finite number. */
  weight: number;
  /** The member's full client options: standalone, Cluster or Sentinel. */
  options: RespireOptions;
}

/** How the group probes its members' health (issue 14 "Health"). */
export interface RespireHealthCheckOptions {
  /** Time between the start of two probes of a member, ms. Default 1000. */
  interval?: number;
  /**
   * A probe not answered within this is a failure, ms. Default 500. While a maintenance window is
   * open on the member's connections, at least the member's `maintenanceRelaxedTimeout`.
   */
  timeout?: number;
  /** Consecutive probe failures that mark a member unhealthy. Default 3. */
  failuresToSwitch?: number;
  /** Consecutive probe successes that mark an unhealthy member healthy again. Default 3. */
  successesToRecover?: number;
  /**
   * The probe: resolves when the member is healthy. Default: `PING`. It is given the member's probe
   * client, which has connections of its own and no circuit breaker (seed 000 "Limits").
   */
  probe?: (client: RespireClient, member: string) => Promise<unknown>;
}

/** `RespireFailoverGroup.connect(options)`. */
export interface RespireFailoverGroupOptions {
  /** At least one member; names unique, weights finite. */
  members: RespireFailoverMember[];
  /** The members' health probes: interval, timeout, thresholds and the probe itself. */
  healthCheck?: RespireHealthCheckOptions;
  /** How long a higher-weight member must have been healthy before the group fails back, ms. Default 30000. */
  failbackDelay?: number;
  /** Reports `respire.failover.*` (the `resiliency` group); see failover-metrics.ts. */
  meter?: RespireMeter | null;
  /** What `meter` reports: RespireMetricGroups values (failover metrics are `resiliency`). Default every group. */
  metricGroups?: readonly RespireMetricGroup[];
}

export interface ResolvedHealthCheck {
  readonly interval: number;
  readonly timeout: number;
  readonly failuresToSwitch: number;
  readonly successesToRecover: number;
  readonly probe: ((client: RespireClient, member: string) => Promise<unknown>) | undefined;
}

export interface ResolvedGroupOptions extends ResolvedMetricOptions {
  readonly members: readonly RespireFailoverMember[];
  readonly healthCheck: ResolvedHealthCheck;
  readonly failbackDelay: number;
}

const GROUP_NAMES = Object.keys({
  members: true,
  healthCheck: true,
  failbackDelay: true,
  meter: true,
  metricGroups: true,
} satisfies Record<keyof RespireFailoverGroupOptions, true>);
const MEMBER_NAMES = Object.keys({ name: true, weight: true, options: true } satisfies Record<
  keyof RespireFailoverMember,
  true
>);
const HEALTH_NAMES = Object.keys({
  interval: true,
  timeout: true,
  failuresToSwitch: true,
  successesToRecover: true,
  probe: true,
} satisfies Record<keyof RespireHealthCheckOptions, true>);

/** @throws RespireConfigurationError naming the option at fault. */
export function resolveGroupOptions(options: RespireFailoverGroupOptions): ResolvedGroupOptions {
  if (options === null || typeof options !== 'object') {
    throw new RespireConfigurationError('options', options, 'an object');
  }
  rejectUnknownOptions(options, GROUP_NAMES, '');
  const { members } = options;
  if (!Array.isArray(members) || members.length === 0) {
    throw new RespireConfigurationError('members', members, 'an array of one or more members');
  }
  const names = new Set<string>();
  // An indexed loop, not forEach: forEach skips the holes of a sparse array, which then passed.
  for (let i = 0; i < members.length; i++) {
    const member = members[i];
    const path = `members[${i}]`;
    if (member === null || typeof member !== 'object') {
      throw new RespireConfigurationError(path, member, '{ name, weight, options }');
    }
    rejectUnknownOptions(member, MEMBER_NAMES, `${path}.`);
    if (typeof member.name !== 'string' || member.name.length === 0) {
      throw new RespireConfigurationError(`${path}.name`, member.name, 'a non-empty string');
    }
    if (names.has(member.name)) {
      throw new RespireConfigurationError(`${path}.name`, member.name, 'a name no other member has');
    }
    names.add(member.name);
    if (typeof member.weight !== 'number' || !Number.isFinite(member.weight)) {
      throw new RespireConfigurationError(`${path}.weight`, member.weight, 'a finite number');
    }
    if (member.options === null || typeof member.options !== 'object') {
      throw new RespireConfigurationError(`${path}.options`, member.options, 'RespireOptions (an object)');
    }
  }
  return {
    members,
    healthCheck: healthCheck(options.healthCheck),
    failbackDelay: integer(options.failbackDelay, 'failbackDelay', 30_000, 0, MAX_TIMEOUT_MS),
    ...resolveMetricOptions(options.meter, options.metricGroups),
  };
}

function healthCheck(value: RespireHealthCheckOptions | undefined): ResolvedHealthCheck {
  if (value !== undefined && (value === null || typeof value !== 'object')) {
    throw new RespireConfigurationError('healthCheck', value, '{ interval, timeout, failuresToSwitch, … }');
  }
  if (value !== undefined) rejectUnknownOptions(value, HEALTH_NAMES, 'healthCheck.');
  const probe = value?.probe;
  if (probe !== undefined && typeof probe !== 'function') {
    throw new RespireConfigurationError('healthCheck.probe', probe, 'a function returning a promise');
  }
  return {
    interval: integer(value?.interval, 'healthCheck.interval', 1000, 1, MAX_TIMEOUT_MS),
    timeout: integer(value?.timeout, 'healthCheck.timeout', 500, 1, MAX_TIMEOUT_MS),
    failuresToSwitch: integer(value?.failuresToSwitch, 'healthCheck.failuresToSwitch', 3, 1, 1000),
    successesToRecover: integer(value?.successesToRecover, 'healthCheck.successesToRecover', 3, 1, 1000),
    probe,
  };
}
