// The floor of a large-string GET case (issue 17 "Large values"): each pass turns as many payloads
// of the case's size as it has GETs from a buffer into strings, as every client's decoder must, and
// resolves with them, with no socket, no server and no parsing. What it costs is what V8 charges
// any client for those strings (their allocation, and with replies kept the collections that copy
// and promote them), so no client can beat the fastest peer by more than that peer's time over
// this one: the README's ratios for these cases are read against it.

import type { PreparedContender } from '../suite.js';
import { checkedPasses } from './checked-passes.js';

/** Bytes between payloads in the buffer, as a RESP header and CRLF take. */
const GAP = 12;

export function stringFloor(
  contender: string,
  caseName: string,
  calls: number,
  valueBytes: number,
  keepReplies: boolean | undefined,
): Promise<PreparedContender> {
  const stride = valueBytes + GAP;
  const input = Buffer.alloc(calls * stride, 'v');
  const expected = 'v'.repeat(valueBytes);
  return checkedPasses({
    contender,
    caseName,
    calls,
    expected,
    keepReplies,
    pass: () => {
      const replies: string[] = new Array(calls);
      for (let i = 0; i < calls; i++)
        replies[i] = input.toString('latin1', i * stride, i * stride + valueBytes);
      return Promise.resolve(replies);
    },
    close: () => Promise.resolve(),
  });
}
