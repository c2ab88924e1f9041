// The errors of reply deadlines (connection.ts), told apart during maintenance (PROTOCOL.md §5
// item 5, as node-redis's CommandTimeoutDuringMaintenance / SocketTimeoutDuringMaintenance): a
// deadline that ran out while a maintenance window was open is a RespireMaintenanceTimeoutError.
import { type RespireEndpoint, RespireMaintenanceTimeoutError, RespireTimeoutError } from '../../errors.js';
import { describeEndpoint } from '../../util/describe-endpoint.js';
import type { Command } from '../command.js';
import type { MaintenanceWindows } from './maintenance-windows.js';

/** A written command's own reply deadline passed. */
export function replyTimeoutError(
  command: Command<unknown>,
  endpoint: RespireEndpoint,
  duringMaintenance: boolean,
): RespireTimeoutError {
  const options = { endpoint, timeoutMs: command.timeoutMs, written: true };
  if (!duringMaintenance) {
    return new RespireTimeoutError(
      `no reply to ${command.name} within ${command.timeoutMs} ms`,
      'response',
      options,
    );
  }
  return new RespireMaintenanceTimeoutError(
    `no reply to ${command.name} within its deadline, relaxed during server maintenance`,
    'command',
    options,
  );
}

/** Why an unresponsive connection was replaced, when it happened during maintenance; else none. */
export function silenceDuringMaintenance(
  endpoint: RespireEndpoint,
  windows: MaintenanceWindows | undefined,
): RespireMaintenanceTimeoutError | undefined {
  if (windows?.active !== true) return undefined;
  return new RespireMaintenanceTimeoutError(
    `the connection stayed silent past ${windows.relaxedTimeoutMs} ms during server maintenance`,
    'socket',
    { endpoint, timeoutMs: windows.relaxedTimeoutMs, written: true },
  );
}

/**
 * A reply still owed on a connection a MOVING handoff replaced after waiting `waitedMs` for its
 * replies (handoff.ts): the command was written, so it fails rather than being sent again.
 */
export function handoffOwedError(
  endpoint: RespireEndpoint,
  to: RespireEndpoint,
  waitedMs: number,
): RespireMaintenanceTimeoutError {
  return new RespireMaintenanceTimeoutError(
    `no reply from ${describeEndpoint(endpoint)} within ${waitedMs} ms of a MOVING to ${describeEndpoint(to)}: ` +
      'the connection was handed over, and a written command is never sent again',
    'command',
    { endpoint, timeoutMs: waitedMs, written: true },
  );
}
