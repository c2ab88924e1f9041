// The heap in use after full collections, for tests that measure what a structure holds: without
// the collections the reading would be mostly garbage.
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

export function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
