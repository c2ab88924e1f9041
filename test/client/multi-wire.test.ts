// The wire rules of a transaction that a healthy server cannot provoke, on a scripted target: a
// transaction is never split across connections, a refused MULTI sends nothing, and an open MULTI
// left behind by a step that could not be written is closed with DISCARD.
import { describe, expect, it } from 'vitest';
import { Transaction } from '../../src/client/transactions/multi.js';
import { TransactionTracker } from '../../src/client/transactions/transaction-run.js';
import { RespireCircuitOpenError, RespireConnectionError, RespireTimeoutError } from '../../src/index.js';
import type { RespValue } from '../../src/resp/types.js';
import { systemClock } from '../../src/util/clock.js';
import { endpoint, ScriptedTarget } from './scripted-target.js';

function transaction(target: ScriptedTarget, tracker?: TransactionTracker) {
  const tx = new Transaction({ target, commandTimeout: 0, clock: systemClock, watched: false, tracker });
  const entries = [tx.send(['SET', 'a', '1']), tx.send(['INCR', 'n'])];
  return { tx, entries };
}

describe('transaction wire rules', () => {
  it('enqueues MULTI, the entries and EXEC together and settles entries from EXEC', async () => {
    const target = new ScriptedTarget();
    const { tx, entries } = transaction(target);
    const outcome = tx.exec();
    expect(target.names()).toEqual(['MULTI', 'SET', 'INCR', 'EXEC']);
    target.write(4);
    for (const [i, reply] of ['OK', 'QUEUED', 'QUEUED', ['OK', 7]].entries()) {
      target.queued[i]!.reply(reply as RespValue);
    }
    expect(await outcome).toEqual(['OK', 7]);
    expect(await Promise.all(entries)).toEqual(['OK', 7]);
  });

  it('sends nothing when MULTI is refused before its write, failing every entry', async () => {
    const target = new ScriptedTarget();
    const { tx, entries } = transaction(target);
    const outcome = tx.exec();
    const refusal = new RespireCircuitOpenError(endpoint, 1000);
    target.queued[0]!.reject(refusal);
    expect(target.unsent()).toEqual([]);
    expect(target.queued.every((command) => command.settled)).toBe(true);
    await expect(outcome).rejects.toBe(refusal);
    for (const entry of entries) await expect(entry).rejects.toBe(refusal);
    expect(target.requests).toEqual([]);
  });

  it('closes an open MULTI with DISCARD when a later step cannot be written', async () => {
    const target = new ScriptedTarget();
    const { tx, entries } = transaction(target);
    const outcome = tx.exec();
    target.write(2);
    target.queued[0]!.reply('OK');
    const timeout = new RespireTimeoutError('no room', 'acquire', { endpoint, written: false });
    target.queued[2]!.reject(timeout);
    // EXEC was never written, so it must never be: the server would run SET alone otherwise.
    expect(target.unsent()).toEqual([]);
    expect(target.requests).toEqual([['DISCARD']]);
    await expect(outcome).rejects.toBe(timeout);
    await expect(entries[0]).rejects.toBe(timeout);
  });

  it('drops the unwritten rest when the target reconnects after MULTI went out', async () => {
    const target = new ScriptedTarget();
    const tracker = new TransactionTracker();
    const { tx, entries } = transaction(target, tracker);
    const outcome = tx.exec();
    target.write(2);
    target.queued[0]!.reply('OK');
    target.queued[1]!.reply('QUEUED');
    target.connected = false;
    tracker.onConnect();
    expect(target.unsent()).toEqual([]);
    expect(target.requests).toEqual([]);
    const error = await outcome.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect(error).toMatchObject({ written: false, endpoint });
    await expect(entries[1]).rejects.toBe(error);
  });

  it('leaves a transaction not yet written alone when the target reconnects', async () => {
    const target = new ScriptedTarget();
    const tracker = new TransactionTracker();
    const { tx } = transaction(target, tracker);
    const outcome = tx.exec();
    tracker.onConnect();
    expect(target.unsent()).toHaveLength(4);
    target.write(4);
    for (const [i, reply] of ['OK', 'QUEUED', 'QUEUED', ['OK', 1]].entries()) {
      target.queued[i]!.reply(reply as RespValue);
    }
    expect(await outcome).toEqual(['OK', 1]);
  });

  it('lets the rest follow a written MULTI when exec() is aborted, rejecting at once', async () => {
    const target = new ScriptedTarget();
    const controller = new AbortController();
    const { tx, entries } = transaction(target);
    const outcome = tx.exec({ signal: controller.signal });
    target.write(1);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(outcome).rejects.toBe(reason);
    await expect(entries[0]).rejects.toBe(reason);
    expect(target.unsent()).toHaveLength(3);
    target.write(4);
    for (const [i, reply] of ['OK', 'QUEUED', 'QUEUED', ['OK', 1]].entries()) {
      target.queued[i]!.reply(reply as RespValue);
    }
    expect(target.queued.every((command) => command.settled)).toBe(true);
  });

  it('rejects exec() when EXEC answers null outside a WATCH session', async () => {
    const target = new ScriptedTarget();
    const { tx, entries } = transaction(target);
    const outcome = tx.exec();
    target.write(4);
    for (const [i, reply] of ['OK', 'QUEUED', 'QUEUED', null].entries()) {
      target.queued[i]!.reply(reply as RespValue);
    }
    await expect(outcome).rejects.toThrow(/watched key changed/);
    await expect(entries[0]).rejects.toThrow(/watched key changed/);
  });
});
