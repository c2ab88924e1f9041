// Pub/sub commands that run on the shared pipeline: PUBLISH, SPUBLISH and PUBSUB introspection.
// Subscribing needs a connection of its own and lives on RespireClient (see src/client/pubsub.ts).
import type { RespValue } from '../../resp/types.js';
import type { CommandOptions } from '../../transport/command.js';
import type { CommandCaller, RedisArgument } from './caller.js';
import { asInteger, asString, elements, unexpected } from './reply.js';

export interface PubSubCommands {
  /** PUBLISH: how many subscribers (on this node) received the message. */
  publish(channel: RedisArgument, message: RedisArgument, options?: CommandOptions): Promise<number>;
  /** SPUBLISH: as `publish`, to a shard channel. */
  spublish(shardChannel: RedisArgument, message: RedisArgument, options?: CommandOptions): Promise<number>;
  /** PUBSUB CHANNELS: active channels, optionally only those matching a glob pattern. */
  pubsubChannels(pattern?: RedisArgument, options?: CommandOptions): Promise<string[]>;
  /** PUBSUB SHARDCHANNELS: active shard channels, optionally only those matching a pattern. */
  pubsubShardChannels(pattern?: RedisArgument, options?: CommandOptions): Promise<string[]>;
  /** PUBSUB NUMSUB: subscriber count per channel, in the order asked. */
  pubsubNumSub(channels: readonly RedisArgument[], options?: CommandOptions): Promise<Map<string, number>>;
  /** PUBSUB NUMPAT: how many patterns all clients are subscribed to. */
  pubsubNumPat(options?: CommandOptions): Promise<number>;
}

export const pubSubCommands: ThisType<CommandCaller> & PubSubCommands = {
  publish(channel, message, options) {
    return this.call(['PUBLISH', channel, message], asInteger, options);
  },
  spublish(shardChannel, message, options) {
    return this.call(['SPUBLISH', shardChannel, message], asInteger, options);
  },
  pubsubChannels(pattern, options) {
    const args = pattern === undefined ? ['PUBSUB', 'CHANNELS'] : ['PUBSUB', 'CHANNELS', pattern];
    return this.call(args, asNames, options);
  },
  pubsubShardChannels(pattern, options) {
    const args = pattern === undefined ? ['PUBSUB', 'SHARDCHANNELS'] : ['PUBSUB', 'SHARDCHANNELS', pattern];
    return this.call(args, asNames, options);
  },
  pubsubNumSub(channels, options) {
    return this.call(['PUBSUB', 'NUMSUB', ...channels], asCountsByName, options);
  },
  pubsubNumPat(options) {
    return this.call(['PUBSUB', 'NUMPAT'], asInteger, options);
  },
};

function asNames(reply: RespValue): string[] {
  return elements(reply).map(asString);
}

/** PUBSUB NUMSUB answers a flat array (RESP2) or a map (RESP3) of channel → count. */
function asCountsByName(reply: RespValue): Map<string, number> {
  const counts = new Map<string, number>();
  if (reply instanceof Map) {
    for (const [name, count] of reply) counts.set(asString(name), asInteger(count));
    return counts;
  }
  if (!Array.isArray(reply) || reply.length % 2 !== 0) throw unexpected(reply, 'channel/count pairs');
  for (let i = 0; i < reply.length; i += 2) counts.set(asString(reply[i]!), asInteger(reply[i + 1]!));
  return counts;
}
