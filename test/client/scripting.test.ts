// Scripting against a real redis-server in RESP3 and RESP2: EVAL/EVALSHA and their _RO forms,
// SCRIPT LOAD/EXISTS/FLUSH, FCALL, and defineScript's EVALSHA→EVAL fallback after SCRIPT FLUSH
// (exactly one EVAL, only on NOSCRIPT).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandCaller } from '../../src/client/commands/caller.js';
import { RedisScript, scriptSha } from '../../src/client/scripting.js';
import { RespireClient, RespireServerError } from '../../src/index.js';
import type { RespArgument } from '../../src/resp/encoder.js';
import type { CommandOptions, ReplyTransform } from '../../src/transport/command.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const INCR_BY = "return redis.call('INCRBY', KEYS[1], ARGV[1])";
const MISSING_SHA = 'ffffffffffffffffffffffffffffffffffffffff';

/** Forwards to the client and records each command name, to see what a script run sent. */
class RecordingCaller implements CommandCaller {
  readonly names: string[] = [];
  constructor(private readonly target: CommandCaller) {}

  call<T>(
    args: RespArgument[],
    transform: ReplyTransform<T> | undefined,
    options: CommandOptions | undefined,
  ) {
    this.names.push(String(args[0]));
    return this.target.call(args, transform, options);
  }
}

describe.each([3, 2] as const)('scripting over RESP%i', (protocol) => {
  const server = useRedisServer();
  let redis: RespireClient;

  beforeAll(async () => {
    redis = await RespireClient.connect({ endpoints: [`${server.host}:${server.port}`], protocol });
  });

  afterAll(async () => {
    await redis?.close();
  });

  it('runs EVAL and EVALSHA with keys and arguments', async () => {
    const script = 'return {KEYS[1], ARGV[1], ARGV[2]}';
    expect(await redis.eval(script, ['k'], ['a', 7])).toEqual(['k', 'a', '7']);
    const sha = await redis.scriptLoad(script);
    expect(sha).toBe(scriptSha(script));
    expect(await redis.evalsha(sha, ['k2'], ['b', 'c'])).toEqual(['k2', 'b', 'c']);
    expect(await redis.scriptExists([sha, MISSING_SHA])).toEqual([true, false]);
    await expect(redis.evalsha(MISSING_SHA)).rejects.toMatchObject({ code: 'NOSCRIPT' });
    expect(await redis.eval('return 1')).toBe(1);
  });

  it('refuses writes in EVAL_RO and EVALSHA_RO', async () => {
    const write = "return redis.call('SET', KEYS[1], 'x')";
    await expect(redis.evalRo(write, ['ro'])).rejects.toBeInstanceOf(RespireServerError);
    const sha = await redis.scriptLoad(write);
    await expect(redis.evalshaRo(sha, ['ro'])).rejects.toBeInstanceOf(RespireServerError);
    expect(await redis.get('ro')).toBeNull();
    expect(await redis.evalRo("return redis.call('GET', KEYS[1])", ['ro'])).toBeNull();
  });

  it('falls back from EVALSHA to EVAL exactly once after SCRIPT FLUSH', async () => {
    const recorder = new RecordingCaller(redis);
    const script = new RedisScript(recorder, INCR_BY);
    expect(await redis.scriptFlush()).toBe('OK');
    expect(await script.run(['counter'], [5])).toBe(5);
    expect(recorder.names).toEqual(['EVALSHA', 'EVAL']);
    // EVAL cached it: the next run is one EVALSHA.
    expect(await script.run(['counter'], [5])).toBe(10);
    expect(recorder.names).toEqual(['EVALSHA', 'EVAL', 'EVALSHA']);
    expect(await redis.scriptExists([script.sha])).toEqual([true]);
    expect(await redis.scriptFlush('ASYNC')).toBe('OK');
    expect(await redis.scriptExists([script.sha])).toEqual([false]);
    expect(await script.run(['counter'], [1])).toBe(11);
    expect(await redis.get('counter')).toBe('11');
  });

  it('does not fall back on any other error', async () => {
    const recorder = new RecordingCaller(redis);
    const failing = new RedisScript(recorder, "return redis.error_reply('BUSYNESS custom failure')");
    await redis.scriptFlush();
    await expect(failing.run()).rejects.toMatchObject({ code: 'BUSYNESS' });
    // NOSCRIPT first, then EVAL ran the script, whose own error is final.
    expect(recorder.names).toEqual(['EVALSHA', 'EVAL']);
    await expect(failing.run()).rejects.toMatchObject({ code: 'BUSYNESS' });
    expect(recorder.names).toEqual(['EVALSHA', 'EVAL', 'EVALSHA']);
  });

  it('sends the _RO forms for a read-only script', async () => {
    const recorder = new RecordingCaller(redis);
    const reader = new RedisScript(recorder, "return redis.call('GET', KEYS[1])", { readOnly: true });
    await redis.set('readable', 'yes');
    await redis.scriptFlush();
    expect(await reader.run(['readable'])).toBe('yes');
    expect(recorder.names).toEqual(['EVALSHA_RO', 'EVAL_RO']);
  });

  it('defines scripts on the client', async () => {
    const script = redis.defineScript(Buffer.from("return ARGV[1] .. '!'"));
    expect(script.sha).toBe(scriptSha("return ARGV[1] .. '!'"));
    expect(await script.run([], ['hi'])).toBe('hi!');
  });

  it('calls functions with FCALL and FCALL_RO', async () => {
    const library = [
      '#!lua name=respire_test',
      "redis.register_function('echo_arg', function(keys, args) return args[1] end)",
      "redis.register_function{function_name='read_key', callback=function(keys, args)",
      "  return redis.call('GET', keys[1]) end, flags={'no-writes'}}",
    ].join('\n');
    await redis.send(['FUNCTION', 'LOAD', 'REPLACE', library]);
    expect(await redis.fcall('echo_arg', [], ['hello'])).toBe('hello');
    await redis.set('fkey', 'fvalue');
    expect(await redis.fcallRo('read_key', ['fkey'])).toBe('fvalue');
    await expect(redis.fcallRo('echo_arg', [], ['x'])).rejects.toBeInstanceOf(RespireServerError);
  });
});
