// `tryAcquire` in terms of `tryAdmit`, for both kinds of circuit (circuit-breaker.ts and
// shared/shared-circuit.ts): the admission object, or the rejection with its retry-after.
import { RespireError } from '../errors.js';
import {
  AdmitRejection,
  type CircuitAcquireResult,
  PROBES_FULL_REJECTION,
  TicketAdmission,
  type TicketCompleter,
} from './admission.js';
import { MAX_ADMISSIONS_IN_FLIGHT } from './admission-slots.js';

/**
 * What `tryAcquire` returns for the result of `tryAdmit`: an admission object for a ticket, or the
 * rejection (`retryAfter` is the circuit's `lastRetryAfter`, read after the admission attempt).
 * @throws RespireError for `AdmitRejection.Saturated` (a leak: every admission must be completed).
 */
export function acquireResult(
  breaker: TicketCompleter,
  ticket: number,
  retryAfter: number,
): CircuitAcquireResult {
  if (ticket >= 0) return new TicketAdmission(breaker, ticket);
  if (ticket === AdmitRejection.ProbesFull) return PROBES_FULL_REJECTION;
  if (ticket === AdmitRejection.Saturated) {
    throw new RespireError(
      `more than ${MAX_ADMISSIONS_IN_FLIGHT} circuit admissions in flight: every admission must be completed`,
    );
  }
  return { admitted: false, retryAfter };
}
