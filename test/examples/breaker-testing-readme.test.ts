// README "Testing your breaker settings": the user's property test it shows, run here as written
// (only the import paths differ: the package's names map to src/), and a check that the README
// still shows exactly this code.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/breaker/index.js';
import { breakerCommands, breakerModel, fakeClock } from '../../src/breaker/testing/index.js';

// README example begin
const options = { failureRateThreshold: 0.25, minimumFailureCount: 3, openDuration: 2_000 };

it('my breaker settings hold against the reference model', () => {
  fc.assert(
    fc.property(breakerCommands(fc, options), (commands) => {
      const clock = fakeClock();
      const breaker = new CircuitBreaker(options, clock);
      fc.modelRun(() => ({ model: breakerModel(options), real: { breaker, clock } }), commands);
    }),
  );
});
// README example end

it('the README shows this example with the package imports', () => {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const example = source.split('// README example begin\n')[1]!.split('// README example end')[0]!;
  const imports = [
    "import fc from 'fast-check';",
    "import { it } from 'vitest';",
    "import { CircuitBreaker } from 'respire/breaker';",
    "import { breakerCommands, breakerModel, fakeClock } from 'respire/breaker/testing';",
  ].join('\n');
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  expect(readme).toContain(`\`\`\`ts\n${imports}\n\n${example}\`\`\``);
});
