// Regression (issue 10, "Options users mistype or that are not built", second item): the
// `error.type` tag of `redis.client.errors` (and the diagnostics channel's `errorType`) took the
// first word of any error reply that looked like a code, so a script's
// `redis.error_reply('TOKENX9F3K2 …')` turned a secret into a metric tag, and each distinct word
// into a new series. Only the codes Redis itself sends name an error reply; anything else is named
// by its class, RespireServerError.
import { describe, expect, it } from 'vitest';
import { errorTypeOf, REDIS_ERROR_CODES } from '../../src/client/metrics-tags.js';
import { RespireMetricGroups, RespireServerError } from '../../src/index.js';
import { RecordingMeter } from '../client/circuit-kit.js';
import { useTestClients } from '../client/support.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer();
const { open } = useTestClients(server);

describe('error.type of an error reply', () => {
  it("a script's error_reply never becomes a tag", async () => {
    const meter = new RecordingMeter();
    const client = await open({ meter, metricGroups: [RespireMetricGroups.Commands] });
    const replies = [
      "return redis.error_reply('TOKENX9F3K2 do not log me')",
      "return redis.error_reply('SECRET-abc123 do not log me')",
      "return redis.error_reply('WRONGTYPE a code Redis sends, raised by a script')",
    ];
    for (const script of replies) {
      await expect(client.send(['EVAL', script, '0'])).rejects.toBeInstanceOf(RespireServerError);
    }
    await client.set('error-type:string', 'x');
    await expect(client.send(['LPUSH', 'error-type:string', 'y'])).rejects.toMatchObject({
      code: 'WRONGTYPE',
    });
    const types = meter.of('redis.client.errors').map((m) => m.attributes?.['error.type']);
    expect(types).toEqual(['RespireServerError', 'RespireServerError', 'WRONGTYPE', 'WRONGTYPE']);
    expect(JSON.stringify(meter.measurements)).not.toMatch(/TOKENX9F3K2|SECRET-abc123/);
  });

  it('every code Redis 7 sends names itself; any other word does not', () => {
    for (const code of REDIS_ERROR_CODES) {
      expect(errorTypeOf(RespireServerError.fromReply(`${code} some text`))).toBe(code);
      expect(errorTypeOf(new RespireServerError(code))).toBe(code);
    }
    for (const word of ['TOKENX9F3K2', 'E1', 'ABCDEFGH', 'ERRX', 'wrongtype', 'SECRET-abc123']) {
      expect(errorTypeOf(RespireServerError.fromReply(`${word} x`))).toBe('RespireServerError');
    }
  });
});
