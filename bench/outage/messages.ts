// Messages between the scenario runner (bench/outage/scenario.ts) and one contender's process
// (bench/outage/contender-process.ts), over the IPC channel of `child_process.fork`. Times cross
// the boundary as epoch milliseconds (`performance.timeOrigin + performance.now()`), which both
// processes read from the same system clock.

import type { ContenderSpec, OutageSettings } from './settings.js';
import type { ContenderSummary } from './summary.js';

export interface Endpoint {
  host: string;
  port: number;
}

/** Where a contender connects: through the fault proxy, to Redis or to one primary of a cluster. */
export type ContenderTarget =
  /** The fault proxy in front of Redis. */
  | ({ kind: 'standalone' } & Endpoint)
  | {
      kind: 'cluster';
      /** Nodes to read the topology from: never the proxied one. */
      seeds: Endpoint[];
      /** The proxied primary's address, and the proxy's: what every client's address map says. */
      proxied: { from: Endpoint; to: Endpoint };
      /** The slots the proxied primary serves, inclusive ranges: its calls are the sick ones. */
      proxiedSlots: (readonly [number, number])[];
    };

/** What the runner gives a contender's process, as its one command-line argument (JSON). */
export interface ContenderArguments {
  contender: ContenderSpec;
  settings: OutageSettings;
  target: ContenderTarget;
}

/** Runner to contender, in this order. */
export type ToContender =
  /** Start the producers and the unrelated task; answered by `started`. */
  | { type: 'start' }
  /** The proxy black-holes Redis since `atMs`. */
  | { type: 'blip'; atMs: number }
  /** The proxy passes traffic again since `atMs`. */
  | { type: 'heal'; atMs: number }
  /** Stop issuing calls, count what is pending, answer `summary`, exit. */
  | { type: 'stop' };

/** Calls so far, for the progress line. */
export interface CallCounts {
  completed: number;
  rejectedFast: number;
  timedOut: number;
  failed: number;
  /** Calls issued and not settled. */
  pending: number;
  /** Calls the schedule offered while every producer was still awaiting its previous one. */
  notIssued: number;
}

/** Contender to runner. */
export type FromContender =
  /** Connected through the proxy and checked one PUBLISH and one XADD. */
  | { type: 'ready' }
  | { type: 'started'; atMs: number }
  | ({ type: 'progress' } & CallCounts)
  | { type: 'summary'; summary: ContenderSummary }
  | { type: 'failed'; error: string };

/** Epoch milliseconds with sub-millisecond resolution, comparable across processes. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}
