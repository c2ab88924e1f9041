// Sentinel (issue 12, seed 000 "Sentinel": before acceptance, unwatched transactions move to the
// new primary). On a switch the router took every unwritten command off the old primary's queue
// and sent it to the new one, so the steps of a transaction whose MULTI had already been written
// went out on the new primary outside MULTI (a half-written transaction: a step waiting for the
// socket to drain). Now each transaction either moves whole before any part is written (and its
// tracker moves with it, so a reconnect of the new primary still guards it), or fails unsent; one
// whose EXEC is out finishes on the old connection. The half-written state needs a socket that
// stops draining mid-transaction, which the Sentinel kit cannot arrange on the nodes the sentinels
// name: the target is played by hand (scripted-target.ts); the whole move runs on a real group in
// sentinel-blocking-moves.test.ts.
import { describe, expect, it } from 'vitest';
import { Transaction } from '../../src/client/transactions/multi.js';
import { TransactionTracker } from '../../src/client/transactions/transaction-run.js';
import { RespireConnectionError } from '../../src/index.js';
import type { RespValue } from '../../src/resp/types.js';
import { CommandState } from '../../src/transport/command.js';
import { systemClock } from '../../src/util/clock.js';
import { ScriptedTarget } from '../client/scripted-target.js';

function started(target: ScriptedTarget, tracker: TransactionTracker) {
  const tx = new Transaction({ target, commandTimeout: 0, clock: systemClock, watched: false, tracker });
  const entries = [tx.send(['SET', 'a', '1']), tx.send(['INCR', 'n'])];
  return { outcome: tx.exec(), entries };
}

describe('a Sentinel switch during a transaction', () => {
  it('fails the unwritten rest, unsent, when MULTI is out and EXEC is not', async () => {
    const old = new ScriptedTarget();
    const oldTracker = new TransactionTracker();
    const { outcome, entries } = started(old, oldTracker);
    old.write(2);
    old.queued[0]!.reply('OK');
    const next = new ScriptedTarget();
    oldTracker.replaced({ target: next, tracker: new TransactionTracker() });
    // Nothing of it is left to move: the router takes no step of it to the new primary.
    expect(old.unsent()).toEqual([]);
    expect(next.queued).toEqual([]);
    const error = await outcome.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: false });
    for (const entry of entries) await expect(entry).rejects.toBe(error);
  });

  it('lets a transaction whose EXEC is out finish on the old connection', async () => {
    const old = new ScriptedTarget();
    const oldTracker = new TransactionTracker();
    const { outcome } = started(old, oldTracker);
    old.write(4);
    oldTracker.replaced({ target: new ScriptedTarget(), tracker: new TransactionTracker() });
    for (const [i, reply] of ['OK', 'QUEUED', 'QUEUED', ['OK', 3]].entries()) {
      old.queued[i]!.reply(reply as RespValue);
    }
    expect(await outcome).toEqual(['OK', 3]);
  });

  it('moves a transaction with nothing written whole, guarded by the new tracker', async () => {
    const old = new ScriptedTarget();
    const oldTracker = new TransactionTracker();
    const { outcome, entries } = started(old, oldTracker);
    const next = new ScriptedTarget();
    const nextTracker = new TransactionTracker();
    oldTracker.replaced({ target: next, tracker: nextTracker });
    // Still queued, whole: the router moves these steps, in order, to the new primary.
    expect(old.unsent().map((step) => String(step.args[0]))).toEqual(['MULTI', 'SET', 'INCR', 'EXEC']);
    for (const step of old.unsent()) next.enqueue(step);
    next.write(2);
    // The new primary's connection drops after MULTI: its tracker fails the rest, unsent.
    next.connected = false;
    oldTracker.onConnect();
    expect(next.queued.filter((step) => step.state === CommandState.Queued)).toHaveLength(2);
    nextTracker.onConnect();
    expect(next.queued.filter((step) => step.state === CommandState.Queued)).toEqual([]);
    await expect(outcome).rejects.toBeInstanceOf(RespireConnectionError);
    await expect(entries[0]).rejects.toMatchObject({ written: false });
  });
});
