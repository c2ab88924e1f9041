// What the pipeline asks right before writing a command, and tells once its outcome is known.
// Transport declares it; the circuit breaker implements it (STYLE.md "Layers"), so transport
// never imports the breaker. A channel without a gate does no per-command work for it.
import type { RespireError } from '../errors.js';
import type { Command, HealthSink } from './command.js';

export interface AdmissionGate extends HealthSink {
  /**
   * Right before the write. Undefined admits the command (the gate may keep a ticket in
   * `command.admission`; its health is then reported to `complete` exactly once); an error
   * rejects it with nothing sent.
   */
  admit(command: Command<unknown>): Error | undefined;
  /**
   * Right before the write of a command that took its ticket while it waited for a connection
   * (`checkWithoutConnection`): undefined keeps that ticket when its half-open round is still the
   * current one; otherwise the ticket ends with no outcome and the command is admitted afresh.
   */
  admitWaited(command: Command<unknown>): Error | undefined;
  /**
   * The command finds no connection to be written on now. An error rejects it at once (the
   * circuit is open: a selection failure while open is a rejection); undefined lets it wait.
   */
  checkWithoutConnection(command: Command<unknown>): Error | undefined;
  /**
   * The command is queued on a connection, to be admitted at the flush. An error rejects it now:
   * the circuit is open within its open duration, or half-open with every probe slot taken, so
   * the flush would reject it anyway, only a microtask later, behind the rest of the tick.
   * Undefined leaves the decision to `admit`.
   */
  rejectWhenQueued(command: Command<unknown>): Error | undefined;
  /**
   * No connection came before the command's acquire deadline: a selection failure, recorded as
   * a failure although nothing was sent. Returns the error to reject the command with.
   */
  selectionFailed(command: Command<unknown>, error: RespireError): Error;
}
