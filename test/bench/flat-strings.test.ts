// Benchmark inputs are flat strings: V8 builds `'x'.repeat(n)` and long template literals as ropes,
// which the first read of a timed loop would flatten. %DebugPrint shows a string's representation.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { flatString, flatten } from '../../bench/flat-strings.js';

const run = promisify(execFile);

/** V8's instance type of each expression's value, printed by a fresh node with natives syntax. */
async function representations(expressions: readonly string[]): Promise<string[]> {
  const script = [
    `const flatString = ${flatString.toString()};`,
    `const flatten = ${flatten.toString()};`,
    ...expressions.map((expression) => `%DebugPrint(${expression});`),
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--allow-natives-syntax', '-e', script]);
  return [...stdout.matchAll(/ - type: (\w+)/g)].map((match) => match[1]!);
}

describe('flat strings', () => {
  it('are sequential where repeat and template literals give ropes', async () => {
    // A template literal of the child's source text, built so that no `${` appears in ours.
    const template = ['`user:session:$', '{1000 + 7}`'].join('');
    const [repeatedType, flatType, templateType, flattenedType] = await representations([
      "'x'.repeat(1024)",
      'flatString(1024)',
      template,
      `flatten(${template})`,
    ]);
    // V8 12 calls a sequential one-byte string ONE_BYTE_STRING_TYPE.
    const sequential = /^(SEQ_)?ONE_BYTE_STRING_TYPE$/;
    expect(repeatedType).toBe('CONS_ONE_BYTE_STRING_TYPE');
    expect(templateType).toBe('CONS_ONE_BYTE_STRING_TYPE');
    expect(flatType).toMatch(sequential);
    expect(flattenedType).toMatch(sequential);
  });

  it('hold the text asked for', () => {
    expect(flatString(5, 'v')).toBe('vvvvv');
    expect(flatString(3)).toBe('xxx');
    expect(flatten('héllo:wörld:1234')).toBe('héllo:wörld:1234');
  });
});
