// untilAborted (src/util/until-aborted.ts), which a hash import uses to read a source that may
// stall: a signal that aborted before the wait began must end it too. The import's own copy only
// listened for a later abort, so an abort landing between two of its awaits (after one read
// resolved, before the next wait) left a stalled source hanging the import for good.
import { describe, expect, it } from 'vitest';
import { untilAborted } from '../../src/util/until-aborted.js';

const never = new Promise<never>(() => {});

describe('untilAborted', () => {
  it('rejects with the reason of a signal that aborted before the wait began', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(untilAborted(never, controller.signal)).rejects.toThrow('stop');
  });

  it('rejects when the signal aborts during the wait, and leaves no listener after a result', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(never, controller.signal);
    controller.abort(new Error('later'));
    await expect(waiting).rejects.toThrow('later');
    const other = new AbortController();
    expect(await untilAborted(Promise.resolve(7), other.signal)).toBe(7);
  });

  it('passes the reading through without a signal', async () => {
    expect(await untilAborted(Promise.resolve('v'), undefined)).toBe('v');
  });
});
