// Every typed command family, merged into Commander. `V` is how data strings arrive: `string` by
// default, `Buffer` on a client with `returnBuffers: true` (see RedisValue in ./reply.ts).
import { type ConnectionCommands, connectionCommands } from './connection.js';
import { type HashCommands, hashCommands } from './hashes.js';
import { type KeyCommands, keyCommands } from './keys.js';
import { type ListCommands, listCommands } from './lists.js';
import { type PubSubCommands, pubSubCommands } from './pubsub.js';
import type { RedisValue } from './reply.js';
import { type ScanCommands, scanCommands } from './scan.js';
import { type ScriptingCommands, scriptingCommands } from './scripting.js';
import { type ServerCommands, serverCommands } from './server.js';
import { type SetCommands, setCommands } from './sets.js';
import { type SortedSetRangeCommands, sortedSetRangeCommands } from './sorted-set-ranges.js';
import { type SortedSetCommands, sortedSetCommands } from './sorted-sets.js';
import { type StreamGroupCommands, streamGroupCommands } from './stream-groups.js';
import { type StreamCommands, streamCommands } from './streams.js';
import { type StringCommands, stringCommands } from './strings.js';

/**
 * Every typed command helper (`get`, `hset`, `zrange`, …) of clients, views, batches and
 * transactions. `V` is how bulk strings arrive: `string`, or `Buffer` with `returnBuffers`.
 */
export interface RedisCommands<V extends RedisValue = string>
  extends ConnectionCommands<V>,
    StringCommands<V>,
    KeyCommands<V>,
    HashCommands<V>,
    ListCommands<V>,
    SetCommands<V>,
    SortedSetCommands<V>,
    SortedSetRangeCommands<V>,
    StreamCommands<V>,
    StreamGroupCommands<V>,
    ServerCommands,
    PubSubCommands,
    ScanCommands<V>,
    ScriptingCommands {}

export const commandFamilies: readonly object[] = [
  connectionCommands,
  stringCommands,
  keyCommands,
  hashCommands,
  listCommands,
  setCommands,
  sortedSetCommands,
  sortedSetRangeCommands,
  streamCommands,
  streamGroupCommands,
  serverCommands,
  pubSubCommands,
  scanCommands,
  scriptingCommands,
];
