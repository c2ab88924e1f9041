// One abort listener per AbortSignal however many commands share it (API.md "Per-command
// options"): Node's EventTarget scans its listeners on every add, so a listener per command made
// N commands on one signal cost O(N²) and warned of a leak past 10. The watch adds its listener
// when the first command joins and removes it when the last one leaves.

/** What a watched command does when its signal aborts. */
export interface AbortTarget {
  onAbort(reason: unknown): void;
}

class SignalWatch {
  readonly targets = new Set<AbortTarget>();

  constructor(private readonly signal: AbortSignal) {}

  /**
   * Detached before any target runs, so a target that leaves (unwatchSignal) or a command that
   * joins the same signal meanwhile finds no watch, or a new one, never this set.
   */
  handleEvent(): void {
    watches.delete(this.signal);
    this.signal.removeEventListener('abort', this);
    for (const target of this.targets) target.onAbort(this.signal.reason);
    this.targets.clear();
  }
}

const watches = new WeakMap<AbortSignal, SignalWatch>();

export function watchSignal(signal: AbortSignal, target: AbortTarget): void {
  let watch = watches.get(signal);
  if (watch === undefined) {
    watch = new SignalWatch(signal);
    watches.set(signal, watch);
    signal.addEventListener('abort', watch);
  }
  watch.targets.add(target);
}

export function unwatchSignal(signal: AbortSignal, target: AbortTarget): void {
  const watch = watches.get(signal);
  if (watch === undefined || !watch.targets.delete(target) || watch.targets.size !== 0) return;
  watches.delete(signal);
  signal.removeEventListener('abort', watch);
}
