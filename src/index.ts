// Public entry point of the `respire` package.

export type { RespireCircuitBreakerOptions } from './breaker/index.js';
export type { RespireClientSideCacheOptions } from './client/cache/cache-options.js';
export type { ClientSideCacheStats } from './client/cache/client-side-cache.js';
export type { UncachedView } from './client/cache/uncached-view.js';
// The types the typed helpers' signatures name, so the API reference documents every one.
export type { RedisInput, RedisKeys, RedisPairs } from './client/commands/arguments.js';
export type { RedisArgument } from './client/commands/caller.js';
export type { RedisCommands } from './client/commands/index.js';
export type { CopyOptions, ExpireOptions } from './client/commands/keys.js';
export type {
  ListEnd,
  ListMultiPop,
  ListPop,
  LposOptions,
  PopCountOptions,
} from './client/commands/lists.js';
export type { RedisValue } from './client/commands/reply.js';
export type {
  HashScanPage,
  KeyScanPage,
  ScanCursor,
  SetScanPage,
  SortedSetScanPage,
} from './client/commands/scan.js';
export type { FlushOptions, InfoSections, ServerTime } from './client/commands/server.js';
export type {
  RangeBound,
  RangeLimit,
  ScoreBound,
  ScoredMember,
  ZRangeByScoreOptions,
  ZRangeOptions,
} from './client/commands/sorted-set-ranges.js';
export type { ScoredInput, SortedSetPop, ZAddOptions } from './client/commands/sorted-sets.js';
export type {
  GroupStreamEntry,
  PendingSummary,
  XGroupCreateOptions,
  XReadGroupOptions,
} from './client/commands/stream-groups.js';
export type {
  StreamEntry,
  StreamOffset,
  StreamRead,
  StreamTrimOptions,
  XAddOptions,
  XRangeOptions,
  XReadOptions,
} from './client/commands/streams.js';
export type { ExpiryOptions, GetExOptions, SetOptions } from './client/commands/strings.js';
export {
  type CircuitTransitionDiagnostic,
  type ClientErrorDiagnostic,
  type CommandDiagnostic,
  type ConnectionDiagnostic,
  type ConnectionRole,
  DiagnosticChannels,
  type ReconnectDiagnostic,
} from './client/diagnostics.js';
export type { DurableBatch } from './client/durable/durable-batch.js';
export type { DurableOptions, DurableReport, DurableWriteReport } from './client/durable/durable-report.js';
export type { RespireEndpointInput } from './client/endpoint.js';
export type { EntrySource, HashEntry } from './client/imports/field-chunks.js';
export type { HashImport, HashImportResult, ImportHashOptions } from './client/imports/hash-import.js';
export type { KeyPrefixView } from './client/key-prefix-view.js';
export {
  type RespireCounter,
  type RespireInstrumentOptions,
  type RespireMeter,
  type RespireMetricAttributes,
  type RespireMetricGroup,
  RespireMetricGroups,
} from './client/metrics.js';
export type {
  AddressMap,
  ReadFrom,
  RespireClusterOptions,
  RespireSentinelOptions,
} from './client/mode-options.js';
export type { ClientCircuit } from './client/node/circuit-gate.js';
export type { RespireOptions, RespireRetryOptions } from './client/options.js';
export type {
  PubSubErrorEvent,
  PubSubErrorListener,
  PubSubErrorSource,
  PubSubListener,
  SubscriptionKind,
} from './client/pubsub/subscriber.js';
export type { KeyScanOptions, ScanOptions } from './client/scan.js';
export type { RedisScript, ScriptArgument, ScriptOptions } from './client/scripting.js';
export type { SetFromStreamOptions, ValueSource } from './client/streams/upload.js';
export type { GetStreamOptions, ValueStream } from './client/streams/value-stream.js';
export type { Batch, BatchFailure } from './client/transactions/batch.js';
export type { Transaction, TransactionOptions } from './client/transactions/multi.js';
export type { WatchSession } from './client/transactions/watch-session.js';
export * from './errors.js';
export {
  type FailoverSwitchListener,
  type RespireFailoverClient,
  RespireFailoverGroup,
  type SwitchReason,
} from './failover/failover-group.js';
export type {
  RespireFailoverGroupOptions,
  RespireFailoverMember,
  RespireHealthCheckOptions,
} from './failover/options.js';
export type { RespDecoderOptions, RespValue } from './resp/types.js';
export { RespireClient } from './respire-client.js';
export type { CommandOptions } from './transport/command.js';
export type { MaintenanceMode } from './transport/maintenance/maintenance.js';
export type {
  ExponentialReconnect,
  ReconnectFunction,
  ReconnectOption,
} from './transport/reconnect-policy.js';
export type { Clock, ClockTimers } from './util/clock.js';
