// A client contender's timed passes, shared by the `client` and `cluster` suites: one untimed pass
// whose every reply must be exactly what the command gives back, then timed passes whose replies
// are counted by a check that costs nothing next to the round trip, and a final check that every
// reply of every pass was right.
import { asyncPasses } from '../measure.js';
import type { PreparedContender } from '../suite.js';

/** What every reply of a pass must be: a string value (`'OK'` for SET), or MGET's list of them. */
export type ExpectedReply = string | readonly string[];

export interface PassWork {
  contender: string;
  caseName: string;
  /** Calls a pass makes, each answered by one reply: the `ops` of ops/s and CPU µs/op. */
  calls: number;
  expected: ExpectedReply;
  pass(): Promise<unknown[]>;
  /**
   * The caller holds on to a pass's replies until the next pass has its own, as a loop of
   * `const values = await …` does. Large strings then live through collections of the young
   * generation, which copies them, instead of dying young.
   */
  keepReplies?: boolean;
  close(): Promise<void>;
}

export async function checkedPasses(work: PassWork): Promise<PreparedContender> {
  const { calls, contender, expected } = work;
  // Untimed: every reply of one pass must be exactly what the command gives back (as a string, or
  // as the bytes of one for `returnBuffers`).
  const checked = await work.pass();
  const wrong = checked.findIndex((reply) => !sameReply(reply, expected));
  if (checked.length !== calls || wrong !== -1) {
    throw new Error(
      `${contender} answered ${work.caseName} with ${checked.length} replies, reply ${wrong} being ${describe(checked[wrong])}`,
    );
  }

  let good = 0;
  const keep = work.keepReplies === true;
  let kept: unknown[] = [];
  return {
    runFor: asyncPasses(async () => {
      const replies = await work.pass();
      if (keep) kept = replies;
      for (let i = 0; i < replies.length; i++) if (looksRight(replies[i], expected)) good++;
    }),
    units: [{ unit: 'ops/s', perPass: calls }],
    cpuPerPass: { unit: 'CPU µs/op', perPass: calls },
    check(passes) {
      if (keep && kept.length !== calls) throw new Error(`${contender} kept ${kept.length} replies`);
      // The untimed pass above is not among `passes`.
      if (good !== passes * calls) {
        throw new Error(`${contender} gave ${good} right replies in ${passes} passes of ${calls}`);
      }
    },
    close: () => work.close(),
  };
}

function sameReply(reply: unknown, expected: ExpectedReply): boolean {
  if (typeof expected === 'string') {
    return (Buffer.isBuffer(reply) ? reply.toString('latin1') : reply) === expected;
  }
  return (
    Array.isArray(reply) &&
    reply.length === expected.length &&
    expected.every((value, i) => sameReply(reply[i], value))
  );
}

/** The timed passes' check: the values are ASCII, so a Buffer's length is the string's. */
function looksRight(reply: unknown, expected: ExpectedReply): boolean {
  if (typeof expected === 'string') {
    return (typeof reply === 'string' || Buffer.isBuffer(reply)) && reply.length === expected.length;
  }
  if (!Array.isArray(reply) || reply.length !== expected.length) return false;
  for (let i = 0; i < reply.length; i++) if (!looksRight(reply[i], expected[i]!)) return false;
  return true;
}

function describe(reply: unknown): string {
  if (Buffer.isBuffer(reply)) return `a Buffer of ${reply.length}`;
  if (typeof reply === 'string')
    return reply.length > 40 ? `a string of ${reply.length}` : JSON.stringify(reply);
  if (Array.isArray(reply)) return `[${reply.map(describe).join(', ')}]`;
  return String(reply);
}
