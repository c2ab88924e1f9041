// importHash (issue 13 "Hash imports"): an HSET that fails inside its EXEC (WRONGTYPE: the key
// holds another type) is an error reply within a transaction that itself succeeded. The import
// wrote nothing, so it must fail with that error, not report the fields as written.
import { describe, expect, it } from 'vitest';
import { RespireServerError } from '../../src/index.js';
import { outcome, useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

describe('importHash and error replies inside EXEC', () => {
  it('an import into a key of another type fails with WRONGTYPE after its first transaction', async () => {
    const redis = await open();
    await redis.set('import:string', 'text');
    const job = redis.importHash(
      'import:string',
      [
        ['f', 'v'],
        ['g', 'w'],
      ],
      { chunkFields: 1 },
    );
    const { error } = await outcome(job.run());
    expect(error).toBeInstanceOf(RespireServerError);
    expect((error as RespireServerError).code).toBe('WRONGTYPE');
    expect(job.fieldsWritten).toBe(0);
    expect(job.resumable).toBe(false);
    expect(await redis.get('import:string')).toBe('text');
  });
});
