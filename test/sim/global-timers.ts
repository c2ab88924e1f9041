// Every client timer must run on the client's clock (util/timers.ts): on the simulated one, a
// global setTimeout or setInterval would wait in real time, or never fire before the run ends, so
// the run would not be the seed's. While a run goes, the global timers are wrapped to tell which
// of the client's own code (a frame under src/) started one; the timer itself still starts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src') + path.sep;

/** Wraps the global timers until the returned function is called; `found` gets each client caller once. */
export function watchGlobalTimers(found: Set<string>): () => void {
  const { setTimeout: timeout, setInterval: interval } = globalThis;
  const watch = <T extends (...args: never[]) => unknown>(name: string, original: T): T =>
    ((...args: Parameters<T>) => {
      const caller = new Error().stack?.split('\n').find((frame) => frame.includes(SRC));
      if (caller !== undefined) found.add(`${name} from ${caller.trim().replace(/^at /, '')}`);
      return original(...args);
    }) as T;
  globalThis.setTimeout = watch('setTimeout', timeout);
  globalThis.setInterval = watch('setInterval', interval);
  return () => {
    globalThis.setTimeout = timeout;
    globalThis.setInterval = interval;
  };
}
