// What a worker process reports about itself after timing (worker-protocol.ts `IsolationReport`),
// and the rule the runner holds Respire's contenders to.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { IsolationReport } from './worker-protocol.js';

const require = createRequire(import.meta.url);

/** Called once timing is over: the V8 flag it flips must not touch a measured function. */
export function inspectIsolation(): IsolationReport {
  return { packages: loadedPackages(Object.keys(require.cache)), stringPrototypeFast: hasFastProperties() };
}

/** Package names (`ioredis`, `@redis/client`) of the files among `paths` that live in node_modules. */
export function loadedPackages(paths: readonly string[]): string[] {
  const names = new Set<string>();
  for (const file of paths) {
    const parts = file.split(/[\\/]/);
    const at = parts.lastIndexOf('node_modules');
    if (at === -1 || at + 1 >= parts.length) continue;
    const scope = parts[at + 1]!;
    if (scope === '') continue;
    names.add(scope.startsWith('@') && at + 2 < parts.length ? `${scope}/${parts[at + 2]}` : scope);
  }
  return [...names].sort();
}

/** `%HasFastProperties(String.prototype)`, through a function compiled with natives syntax on. */
function hasFastProperties(): boolean {
  setFlagsFromString('--allow-natives-syntax');
  try {
    return (new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean)(String.prototype);
  } finally {
    setFlagsFromString('--no-allow-natives-syntax');
  }
}

/**
 * Why a Respire contender's figure cannot be trusted, or undefined when it can: its process loaded
 * a package (every peer is one; Respire has no dependencies) or String.prototype went slow.
 */
export function isolationFault(report: IsolationReport): string | undefined {
  if (report.packages.length > 0) return `loaded ${report.packages.join(', ')} from node_modules`;
  if (!report.stringPrototypeFast)
    return 'ran with String.prototype in dictionary mode (a class extends String)';
  return undefined;
}
