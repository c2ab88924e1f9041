// The progress line of the outage scenario on stderr: on a terminal, one line redrawn in place
// with the contender, its phase and its call counts; elsewhere (a pipe, a CI log) only the phase
// changes, one line each, so logs are not flooded.
import type { CallCounts } from './messages.js';

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Where the run is, for the line. */
export interface ProgressState {
  /** The scenario's name; default `outage`. */
  scenario?: string | undefined;
  /** 1-based index of the contender, and how many run. */
  index: number;
  total: number;
  contender: string;
  phase: 'connecting' | 'warm-up' | 'blip' | 'after the heal' | 'stopping';
  /** Time spent in the phase and its length (0 for phases of no set length). */
  phaseElapsedMs: number;
  phaseMs: number;
  counts: CallCounts | undefined;
}

/** Redraws at most this often. */
const REDRAW_EVERY_MS = 100;

export class ProgressLine {
  private lastDrawn = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private lastPhase = '';

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number = () => performance.now(),
  ) {}

  show(state: ProgressState): void {
    const phaseKey = `${state.index}:${state.phase}`;
    const phaseChanged = phaseKey !== this.lastPhase;
    this.lastPhase = phaseKey;
    if (this.stream.isTTY !== true) {
      if (phaseChanged) this.stream.write(`${describeProgress({ ...state, counts: undefined })}\n`);
      return;
    }
    const at = this.now();
    if (!phaseChanged && at - this.lastDrawn < REDRAW_EVERY_MS) return;
    this.lastDrawn = at;
    // A terminal of unknown size (columns 0 or unset) gets a line of 120.
    const width = Math.max(20, (this.stream.columns || 120) - 1);
    this.stream.write(`\r${describeProgress(state).slice(0, width)}\x1b[K`);
    this.drawn = true;
  }

  /** Removes the line (on a terminal) before other output. */
  clear(): void {
    if (!this.drawn) return;
    this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}

export function describeProgress(state: ProgressState): string {
  const parts = [`${state.scenario ?? 'outage'} ${state.index}/${state.total} ${state.contender}`];
  const elapsed = (state.phaseElapsedMs / 1000).toFixed(1);
  parts.push(
    state.phaseMs > 0 ? `${state.phase} ${elapsed}/${(state.phaseMs / 1000).toFixed(1)} s` : state.phase,
  );
  const counts = state.counts;
  if (counts !== undefined) {
    const n = (value: number) => value.toLocaleString('en-US');
    parts.push(
      `completed ${n(counts.completed)}`,
      `rejected ${n(counts.rejectedFast)}`,
      `timed out ${n(counts.timedOut)}`,
      `failed ${n(counts.failed)}`,
      `pending ${n(counts.pending)}`,
      `not issued ${n(counts.notIssued)}`,
    );
  }
  return parts.join(' · ');
}
