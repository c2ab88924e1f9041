// What a thread's handle on a shared circuit is made from (shared-circuit.ts, retired-circuit.ts):
// one registry view's context (registry.ts `contextOf`).
import type { MonotonicClock, RandomSource } from '../environment.js';
import type { ResolvedCircuitBreakerOptions } from '../options.js';
import type { Layout } from './layout.js';
import type { StateWordLayout } from './state-word.js';

/** What a thread's handle is made from: the registry's buffer and layout, and the thread's own clock. */
export interface SharedCircuitContext {
  readonly buffer: SharedArrayBuffer;
  readonly cells: Int32Array;
  readonly layout: Layout;
  readonly words: StateWordLayout;
  readonly options: ResolvedCircuitBreakerOptions;
  /** The registry's `probeTimeout`: how long a full half-open round may go without a new probe. */
  readonly probeTimeout: number;
  readonly clock: MonotonicClock;
  /** Makes the next reading of `clock` fresh (its turn cache, if any, forgets its reading). */
  readonly refreshClock: () => void;
  /** The same clock without a turn cache, read while waiting for a guard (circuit-guard.ts). */
  readonly waitClock: MonotonicClock;
  readonly random: RandomSource;
  readonly reportListenerError: (error: unknown) => void;
}
