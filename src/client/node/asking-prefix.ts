// `ASKING`, written right before a command sent to the target of an ASK, on the same connection
// (PROTOCOL.md §2.3). Seed 000 "Redis Cluster": the target is checked before ASKING is sent, so the
// circuit admits ASKING, and that one admission covers the command behind it (which is flagged
// TransactionStep, so it is not checked again): ASKING's reply records nothing, the command's
// outcome is recorded (the command reports to this prefix as its HealthSink), and a rejection of
// ASKING fails the command with nothing sent. A half-open target thus spends one probe slot on the
// pair, and ASKING never goes out alone to leave the connection asking for whatever comes next.
import type { RespValue } from '../../resp/types.js';
import type { Channel } from '../../transport/channel.js';
import { Command, CommandFlags, CommandState, type HealthSink } from '../../transport/command.js';
import type { Health } from '../../transport/health.js';

export class AskingPrefix extends Command<RespValue> implements HealthSink {
  /** `asked` must carry CommandFlags.TransactionStep: this prefix's admission is its own. */
  constructor(private readonly asked: Command<unknown>) {
    // Blocking like the command, so that a probe without a reply deadline is bounded (circuit-gate.ts).
    super(['ASKING'], asked.flags & CommandFlags.Blocking, undefined, undefined, asked.timeoutMs);
    asked.gate = this;
    // Nobody awaits ASKING's own promise.
    this.promise.catch(ignore);
  }

  /** ASKING answered: its admission stays open until the command's outcome is known. */
  override reply(value: RespValue): void {
    this.resolve(value);
  }

  /** Rejected (by the circuit, a lost connection…): the command behind it is not sent alone. */
  override reject(error: unknown): void {
    super.reject(error);
    if (this.asked.state === CommandState.Queued) this.asked.reject(error);
  }

  /** The command's outcome is the admission's; a command that ended unsent takes ASKING with it. */
  complete(_asked: Command<unknown>, health: Health): void {
    this.reportHealth(health);
    if (this.state === CommandState.Queued) this.resolve(null);
  }
}

/**
 * Queues ASKING and then `command` (made with CommandFlags.TransactionStep) on `channel`, the pair
 * admitted once by ASKING (a dedicated connection's command after an ASK: data-redirect.ts).
 */
export function enqueueAsked(channel: Channel, command: Command<unknown>): void {
  channel.enqueue(new AskingPrefix(command) as Command<unknown>);
  channel.enqueue(command);
}

function ignore(): void {}
