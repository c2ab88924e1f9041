// Maintenance push frames (PROTOCOL.md §5, "smart client handoffs"), parsed once where they arrive
// into typed notifications that the rest of the maintenance code branches on. Formats are what the
// official clients parse (never published as a spec), so extra trailing fields are accepted and a
// frame that does not fit is not a maintenance notification at all (it goes on to other handlers).
import type { RespireEndpoint } from '../../errors.js';
import type { RespValue } from '../../resp/types.js';

export type MaintenanceNotification =
  /** MIGRATING / FAILING_OVER / SMIGRATING: a window opens; relax deadlines. */
  | { readonly kind: 'start'; readonly type: string; readonly seq: number; readonly timeS: number }
  /** MIGRATED / FAILED_OVER / SMIGRATED: the window of `seq` or earlier closes; restore deadlines. */
  | { readonly kind: 'end'; readonly type: string; readonly seq: number }
  /** MOVING: this endpoint goes away within `timeS`; `to` null means reconnect to the configured one after timeS/2. */
  | {
      readonly kind: 'moving';
      readonly seq: number;
      readonly timeS: number;
      readonly to: RespireEndpoint | null;
    };

/** Start types and the end type that closes each. */
const STARTS = new Set(['MIGRATING', 'FAILING_OVER', 'SMIGRATING']);
const ENDS = new Set(['MIGRATED', 'FAILED_OVER', 'SMIGRATED']);

/** The notification a push frame carries, or undefined when it is not a (well-formed) one. */
export function parseMaintenance(frame: readonly RespValue[]): MaintenanceNotification | undefined {
  // Every push of the connection comes here first (pub/sub messages, invalidations): most are
  // told apart by length and first letter, before a string is made or upper-cased.
  if (!mayBeMaintenance(frame[0])) return undefined;
  const type = text(frame[0])?.toUpperCase();
  if (type === undefined) return undefined;
  const seq = integer(frame[1]);
  if (seq === undefined) return undefined;
  if (ENDS.has(type)) return { kind: 'end', type, seq };
  if (type === 'SMIGRATING') return { kind: 'start', type, seq, timeS: 0 };
  const timeS = integer(frame[2]);
  if (timeS === undefined) return undefined;
  if (STARTS.has(type)) return { kind: 'start', type, seq, timeS };
  if (type !== 'MOVING') return undefined;
  const target = frame[3];
  if (target === null || target === undefined || text(target)?.toLowerCase() === 'null') {
    return { kind: 'moving', seq, timeS, to: null };
  }
  const to = endpoint(text(target));
  return to === undefined ? undefined : { kind: 'moving', seq, timeS, to };
}

/** The notification types' (lower-cased first letter, length) pairs, as `letter << 8 | length`. */
const SHAPES: ReadonlySet<number> = new Set(
  [...STARTS, ...ENDS, 'MOVING'].map((type) => ((type.charCodeAt(0) | 0x20) << 8) | type.length),
);

/** Whether a push's type has the length and first letter (any case) of a notification type. */
function mayBeMaintenance(value: RespValue | undefined): boolean {
  let initial: number;
  if (typeof value === 'string') initial = value.charCodeAt(0);
  else if (Buffer.isBuffer(value)) initial = value[0] ?? 0;
  else return false;
  return SHAPES.has(((initial | 0x20) << 8) | value.length);
}

function text(value: RespValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}

function integer(value: RespValue | undefined): number | undefined {
  const number = typeof value === 'number' ? value : Number(text(value) ?? Number.NaN);
  return Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}

/** `host:port` (IPv6 as `[::1]:6379` or with the last colon before the port). */
function endpoint(value: string | undefined): RespireEndpoint | undefined {
  if (value === undefined) return undefined;
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(value);
  if (match === null) return undefined;
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { host: match[1]!, port } : undefined;
}
