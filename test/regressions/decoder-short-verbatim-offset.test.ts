// A verbatim string shorter than its `fmt:` prefix (`=0\r\n\r\n`) failed with an error offset past
// the end of the input (7 of 6 bytes): the offset named where the `:` belongs even when the payload
// ends before it. Found by a CI run of the decoder's garbage property (seed -950076846).
import { expect, it } from 'vitest';
import { asProtocolError, feed, whole } from '../resp/feed.js';

it('a too short verbatim string fails at an offset inside the input', () => {
  for (const text of ['=0\r\n\r\n', '=2\r\nab\r\n', '=3\r\nabc\r\n']) {
    const input = Buffer.from(text, 'latin1');
    const outcome = feed(whole(input), {});
    const error = asProtocolError(outcome.error);
    expect(error.offset).toBeGreaterThanOrEqual(0);
    expect(error.offset).toBeLessThan(input.length);
  }
});
