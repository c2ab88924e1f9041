// Sentinel discovery (issue 12): what the Sentinel router consumes.

export type { SentinelDataSettings } from './exchange.js';
export {
  DEFAULT_SENTINEL_PORT,
  type ResolvedSentinelOptions,
  type RespireSentinelOptions,
  validateSentinelOptions,
} from './options.js';
export {
  type PrimaryChangeListener,
  type ReplicasChangeListener,
  type ResolveReason,
  SentinelWatcher,
  type SentinelWatcherOptions,
} from './sentinel-watcher.js';
