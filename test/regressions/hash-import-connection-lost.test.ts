// Regression (issue 13 "Hash imports": "Any other failure (… a lost connection …) ends the import";
// seed 000 "a rejection before sending keeps the session"). An import's dedicated connection that
// was lost between two transactions (killed while the entries were being read, or reset by the
// blip that opened the circuit) never reconnects, and the next transaction failed with
// "the client is closed", though the client was open. Worse, when the circuit was open by then,
// the import said it was resumable (a rejection) with its session already gone, and `run()` then
// failed with that same wrong message. The import now fails at once, saying its connection was
// lost, not resumable, and its temporary key is deleted.
import diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import {
  type ConnectionDiagnostic,
  DiagnosticChannels,
  RespireCircuitOpenError,
  RespireConnectionError,
} from '../../src/index.js';
import { outcome, tripByRefusal, untilProbeDue, useCircuitRigs } from '../client/circuit-kit.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);
const rigs = useCircuitRigs(server);

/** Kills the connection whose last command was EXEC: the import's. */
async function killImportConnection(admin: Awaited<ReturnType<typeof open>>): Promise<void> {
  const list = (await admin.send(['CLIENT', 'LIST'])) as string;
  const line = list.split('\n').find((entry) => / cmd=exec /.test(entry));
  expect(line).toBeDefined();
  const id = /\bid=(\d+)/.exec(line!)![1]!;
  expect(await admin.send(['CLIENT', 'KILL', 'ID', id])).toBe(1);
}

describe('a hash import whose connection is lost between transactions', () => {
  it('ends saying the connection was lost, and deletes its temporary key', async () => {
    const redis = await open();
    const admin = await open();
    await redis.hset('import-lost:h', { old: '1' });
    async function* entries(): AsyncGenerator<[string, string]> {
      for (let i = 0; i < 30; i++) {
        if (i === 20) await killImportConnection(admin);
        yield [`f${i}`, `v${i}`];
      }
    }
    const job = redis.importHash('import-lost:h', entries(), { chunkFields: 10, replace: true });
    const { error } = await outcome(job.run());
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as Error).message).not.toMatch(/client is closed/);
    // Lost while idle, or (when the kill is read only as the transaction goes out) closed under it.
    expect((error as Error).message).toMatch(/lost|closed by the server/);
    expect(job.resumable).toBe(false);
    expect(job.fieldsWritten).toBe(10);
    expect(await redis.hgetall('import-lost:h')).toEqual({ old: '1' });
    // The temporary key of the chunk that ran is deleted (best effort, through the client).
    await expect.poll(async () => (await redis.send(['KEYS', '*respire-import*'])) as string[]).toEqual([]);
  });

  it('resumed after a circuit rejection, once its kept connection was lost: ends saying so', async () => {
    const rig = await rigs.open();
    const admin = await open();
    async function* entries(): AsyncGenerator<[string, string]> {
      for (let i = 0; i < 30; i++) {
        // The circuit opens between transactions; the import's connection stays up for now.
        if (i === 20) await tripByRefusal(rig);
        yield [`f${i}`, `v${i}`];
      }
    }
    const job = rig.client.importHash('import-lost:h2', entries(), { chunkFields: 10, replace: true });
    expect((await outcome(job.run())).error).toBeInstanceOf(RespireCircuitOpenError);
    expect(job.resumable).toBe(true);
    // While the caller waits out the open delay, the kept connection is killed (a server timeout,
    // an operator), and the client sees it close.
    const closed = new Promise<void>((resolve) => {
      const listener = (message: unknown): void => {
        if ((message as ConnectionDiagnostic).role !== 'dedicated') return;
        diagnostics.unsubscribe(DiagnosticChannels.connectionClose, listener);
        resolve();
      };
      diagnostics.subscribe(DiagnosticChannels.connectionClose, listener);
    });
    await killImportConnection(admin);
    await closed;
    await untilProbeDue(rig.circuit);
    const { error } = await outcome(job.run());
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as Error).message).toMatch(
      /importHash: the connection to .* was lost after 1 transactions/,
    );
    expect((error as RespireConnectionError).written).toBe(false);
    expect(job.resumable).toBe(false);
    await expect(job.run()).rejects.toBeInstanceOf(TypeError);
    expect(await admin.exists('import-lost:h2')).toBe(0);
    await expect.poll(async () => (await admin.send(['KEYS', '*respire-import*'])) as string[]).toEqual([]);
  });
});

describe('a hash import resumed after the client closed', () => {
  it('says the client closed its connection, not that it was lost', async () => {
    const rig = await rigs.open();
    async function* entries(): AsyncGenerator<[string, string]> {
      for (let i = 0; i < 30; i++) {
        if (i === 20) await tripByRefusal(rig);
        yield [`f${i}`, `v${i}`];
      }
    }
    const job = rig.client.importHash('import-lost:h3', entries(), { chunkFields: 10 });
    expect((await outcome(job.run())).error).toBeInstanceOf(RespireCircuitOpenError);
    await rig.client.close();
    const { error } = await outcome(job.run());
    expect(error).toBeInstanceOf(RespireConnectionError);
    expect((error as Error).message).toMatch(/was closed by the client/);
    expect(job.resumable).toBe(false);
  });
});
