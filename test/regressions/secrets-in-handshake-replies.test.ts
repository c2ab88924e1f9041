// Regression (issue 17, "No error message ... ever carries a password"): a server's error reply
// may quote the command's arguments, and the handshake's AUTH and HELLO carry the password. Redis
// 7.0 answers a command it does not have with "ERR unknown command 'AUTH', with args beginning
// with: '<password>'", so a client given a password for a server whose AUTH is renamed away (as
// hardened deployments do) failed its handshake with the password in the error's message, in its
// stack and in its cause. Redis quotes at most about 128 characters and turns CR and LF into
// spaces, so a long password or one with a line break came out altered or cut, not only verbatim.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { RespireClient, RespireConnectionError, type RespireOptions } from '../../src/index.js';
import { useRedisServer } from '../kit/vitest-redis.js';

const server = useRedisServer({ configLines: ['rename-command AUTH ""', 'rename-command HELLO ""'] });

/** Every trace of `value` a log could show: message, stack, cause chain and fields. */
function shown(value: unknown): string {
  const error = value as Error;
  return `${inspect(value, { depth: 8, showHidden: true })}\n${error.message}\n${error.stack}`;
}

const SHORT = 'Sw0rdf1sh-hs';
// Past what Redis quotes: only a prefix of it would appear in the reply.
const LONG = `L0ng-${'k3y'.repeat(100)}`;
// Redis prints a line break as a space, so the quoted text differs from the password.
const BROKEN = 'line-one\r\nline-two-secret';

const CASES: [label: string, password: string, needles: string[]][] = [
  ['a short password', SHORT, [SHORT]],
  ['a password longer than Redis quotes', LONG, [LONG.slice(0, 40), 'k3yk3yk3yk3y']],
  ['a password with a line break', BROKEN, ['line-one', 'line-two-secret']],
];

describe.each([3, 2] as const)('a handshake refused with the arguments quoted (protocol %i)', (protocol) => {
  it.each(CASES)('does not show %s', async (_label, password, needles) => {
    const options: RespireOptions = {
      endpoints: [{ host: server.host, port: server.port }],
      password,
      protocol,
      reconnect: false,
      connectTimeout: 5000,
    };
    const error = await RespireClient.connect(options).then(
      (client) => {
        client.destroy();
        throw new Error('connected to a server that has no AUTH');
      },
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(RespireConnectionError);
    // Still says what went wrong.
    expect((error as Error).message).toMatch(/handshake with .* failed: ERR unknown command 'AUTH'/);
    const text = shown(error);
    for (const needle of needles) expect(text).not.toContain(needle);
  });
});
