// The order a topology refresh asks nodes in (issue 11 "Topology": refreshes never need a node that
// has died). Nodes whose topology read failed lately go last, oldest failure first: a black-holed
// node early in the order would otherwise cost `connectTimeout` on every refresh. A node that
// answers again takes its place again; a failure is forgotten after FORGET_AFTER_MS, so a node
// that failed once is not shunned for good. Bounded: only candidates of the refresh are kept.
import type { RespireEndpoint } from '../errors.js';

/** How long a failed read sends a node to the back of the order. */
const FORGET_AFTER_MS = 60_000;

export class RefreshOrder {
  /** Failed reads by address (`host:port`), with when they failed. */
  private readonly failedAt = new Map<string, number>();

  /** `candidates` with the nodes that failed lately moved to the back, oldest failure first. */
  order<T extends { readonly endpoint: RespireEndpoint }>(candidates: readonly T[], now: number): T[] {
    const fresh: T[] = [];
    const failed: { candidate: T; at: number }[] = [];
    const listed = new Set<string>();
    for (const candidate of candidates) {
      const key = addressOf(candidate.endpoint);
      listed.add(key);
      const at = this.failedAt.get(key);
      if (at !== undefined && now - at < FORGET_AFTER_MS) failed.push({ candidate, at });
      else fresh.push(candidate);
    }
    // Addresses no longer asked (gone from the map) and failures too old to matter are forgotten.
    for (const [key, at] of this.failedAt) {
      if (!listed.has(key) || now - at >= FORGET_AFTER_MS) this.failedAt.delete(key);
    }
    failed.sort((a, b) => a.at - b.at);
    return [...fresh, ...failed.map((entry) => entry.candidate)];
  }

  failed(endpoint: RespireEndpoint, now: number): void {
    this.failedAt.set(addressOf(endpoint), now);
  }

  answered(endpoint: RespireEndpoint): void {
    this.failedAt.delete(addressOf(endpoint));
  }
}

function addressOf(endpoint: RespireEndpoint): string {
  return `${endpoint.host}:${endpoint.port}`;
}
