// The kind of a pub/sub frame, as the connection tells replies from pushes on RESP2 and RESP3.
import type { RespValue } from '../resp/types.js';

/** The lower-cased first element of a pub/sub frame (`message`, `subscribe`, …), or ''. */
export function kindOf(frame: RespValue[]): string {
  const first = frame[0];
  if (typeof first === 'string') return first.toLowerCase();
  if (Buffer.isBuffer(first)) return first.toString('latin1').toLowerCase();
  return '';
}
