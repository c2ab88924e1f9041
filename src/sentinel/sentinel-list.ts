// The sentinels to ask, in the order to ask them (PROTOCOL.md §3.2, §3.7): the configured ones,
// then the ones learned from `SENTINEL SENTINELS`. The one that answered last moves to the front,
// so the next resolution asks a sentinel known to work first.
import type { RespireEndpoint } from '../errors.js';
import { MAX_SENTINELS } from './options.js';

export class SentinelList {
  private list: RespireEndpoint[];

  constructor(configured: readonly RespireEndpoint[]) {
    this.list = [...configured];
  }

  /** A snapshot, front first. */
  get all(): readonly RespireEndpoint[] {
    return [...this.list];
  }

  /** Moves `endpoint` to the front (it answered). */
  promote(endpoint: RespireEndpoint): void {
    const index = this.indexOf(endpoint);
    if (index <= 0) return;
    this.list.splice(index, 1);
    this.list.unshift(endpoint);
  }

  /** Appends the sentinels not listed yet, up to MAX_SENTINELS; returns how many were added. */
  learn(endpoints: readonly RespireEndpoint[]): number {
    let added = 0;
    for (const endpoint of endpoints) {
      if (this.list.length >= MAX_SENTINELS) break;
      if (this.indexOf(endpoint) !== -1) continue;
      this.list.push(endpoint);
      added++;
    }
    return added;
  }

  private indexOf(endpoint: RespireEndpoint): number {
    return this.list.findIndex((known) => sameEndpoint(known, endpoint));
  }
}

export function sameEndpoint(a: RespireEndpoint | undefined, b: RespireEndpoint | undefined): boolean {
  return a !== undefined && b !== undefined && a.host === b.host && a.port === b.port;
}
