// The faults of one seed (issue 16): the network's profile, outages (the server down: connections
// refused and live ones reset; or a partition: connects hang and live ones go silent), faults on
// single commands (a reset before or after it runs, a black hole, the server closing the
// connection after answering, a stall), and jumps of the clock. All drawn from the seed up front or
// as the run asks, from the world's one generator, so a seed always replays the same faults.
import type { RespireEndpoint } from '../../src/errors.js';
import type { SeededRandom } from '../kit/seeded-random.js';
import type { ConnectPolicy, LinkProfile, SimNetwork } from './network.js';
import type { CommandFault, ServerFaults } from './redis.js';
import type { Scheduler } from './scheduler.js';

export interface Outage {
  start: number;
  end: number;
  kind: 'down' | 'partition';
  /** The one server (`host:port`) it hits in a world of several; every server when absent. */
  node?: string;
}

export interface FaultSettings {
  /** Chance per command of each fault; 0 turns the fault off. */
  resetBefore: number;
  resetAfter: number;
  blackhole: number;
  closeAfter: number;
  stall: number;
  stallMaxMs: number;
  /** Chance per command that its reply arrives as bytes no decoder accepts. */
  corrupt: number;
  /** Chance per connection attempt outside outages. */
  refuse: number;
  connectMaxMs: number;
  outages: Outage[];
  jumps: { at: number; ms: number }[];
  latencyMs: number;
  jitterMs: number;
  splitChance: number;
  /** Chance a connection's writes buffer only a few bytes (a slow reader on the other side). */
  slowReader: number;
}

/** Draws the faults of one run; `horizonMs` is when the workload ends. */
export function drawFaults(random: SeededRandom, horizonMs: number): FaultSettings {
  const calm = random.chance(0.15);
  const rate = (max: number): number => (calm ? 0 : random.chance(0.5) ? random.next() * max : 0);
  const outages: Outage[] = [];
  for (let n = calm ? 0 : random.int(0, 3); n > 0; n--) {
    const start = random.int(1, horizonMs);
    outages.push({
      start,
      end: start + random.int(5, 1500),
      kind: random.chance(0.5) ? 'down' : 'partition',
    });
  }
  const jumps: { at: number; ms: number }[] = [];
  for (let n = calm || random.chance(0.6) ? 0 : random.int(1, 2); n > 0; n--) {
    jumps.push({ at: random.int(1, horizonMs), ms: random.int(1, 2000) });
  }
  return {
    resetBefore: rate(0.03),
    resetAfter: rate(0.03),
    blackhole: rate(0.01),
    closeAfter: rate(0.02),
    stall: rate(0.05),
    stallMaxMs: random.int(1, 400),
    corrupt: rate(0.01),
    refuse: rate(0.3),
    connectMaxMs: random.int(1, 80),
    outages,
    jumps,
    latencyMs: random.next() * 3,
    jitterMs: random.next() * (random.chance(0.2) ? 60 : 4),
    splitChance: random.next() * 0.8,
    slowReader: rate(0.5),
  };
}

/** The fault plan in force: the network's connect policy, the server's command faults, and timed events. */
export class FaultPlan implements ConnectPolicy, ServerFaults {
  /** Off while the client's first connection opens, so most runs get to their workload. */
  active = false;

  constructor(
    readonly settings: FaultSettings,
    private readonly random: SeededRandom,
    private readonly scheduler: Scheduler,
  ) {}

  /** Schedules outages and clock jumps (times relative to the moment the workload starts). */
  arm(network: SimNetwork, origin: number): void {
    for (const outage of this.settings.outages) {
      this.scheduler.after(origin + outage.start - this.scheduler.now(), `${outage.kind} starts`, () => {
        this.scheduler.trace(`outage (${outage.kind}) until ${origin + outage.end}`);
        for (const link of network.open(outage.node)) {
          if (outage.kind === 'down') link.reset('server down');
          else link.blackhole();
        }
      });
    }
    for (const jump of this.settings.jumps) {
      this.scheduler.after(origin + jump.at - this.scheduler.now(), 'clock jump', () =>
        this.scheduler.jump(jump.ms),
      );
    }
    this.origin = origin;
  }

  private origin = 0;

  private outageNow(to: string): Outage | undefined {
    const t = this.scheduler.now() - this.origin;
    return this.settings.outages.find(
      (outage) => outage.start <= t && t < outage.end && (outage.node === undefined || outage.node === to),
    );
  }

  connect(endpoint: RespireEndpoint): { outcome: 'accept' | 'refuse' | 'hang'; delayMs: number } {
    const delayMs = this.random.next() * (this.active ? this.settings.connectMaxMs : 2);
    if (!this.active) return { outcome: 'accept', delayMs };
    const outage = this.outageNow(`${endpoint.host}:${endpoint.port}`);
    if (outage?.kind === 'partition') return { outcome: 'hang', delayMs };
    if (outage?.kind === 'down' || this.random.chance(this.settings.refuse))
      return { outcome: 'refuse', delayMs };
    return { outcome: 'accept', delayMs };
  }

  profile(): LinkProfile {
    const slow = this.active && this.random.chance(this.settings.slowReader);
    return {
      latencyMs: this.settings.latencyMs,
      jitterMs: this.settings.jitterMs,
      splitChance: this.settings.splitChance,
      writeBufferBytes: slow ? this.random.int(1, 64) : 16 * 1024,
    };
  }

  beforeCommand(args: readonly string[]): CommandFault {
    if (!this.active) return 'none';
    // The handshake is faulted too: a reset in the middle of HELLO is a failed connect.
    const s = this.settings;
    const roll = this.random.next();
    let edge = 0;
    for (const [fault, chance] of [
      ['reset-before', s.resetBefore],
      ['reset-after', s.resetAfter],
      ['blackhole', s.blackhole],
      ['close-after', s.closeAfter],
      ['stall', s.stall],
      ['corrupt', s.corrupt],
    ] as const) {
      edge += chance;
      if (roll < edge) {
        this.scheduler.trace(`fault ${fault} at ${args[0]}`);
        return fault;
      }
    }
    return 'none';
  }

  stallMs(): number {
    return this.random.next() * this.settings.stallMaxMs;
  }
}
