// A full garbage collection on demand, for suites that measure memory: `global.gc` when node runs
// with --expose-gc, otherwise V8's own, exposed at run time.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
