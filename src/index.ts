// Public entry point of the `respire` package.

export type { RespireCircuitBreakerOptions } from './breaker/index.js';
export type { RedisArgument } from './client/commands/caller.js';
export type { RedisCommands } from './client/commands/index.js';
export type { RespireEndpointInput } from './client/endpoint.js';
export type { RespireOptions, RespireRetryOptions } from './client/options.js';
export { RespireClient } from './client/respire-client.js';
export * from './errors.js';
export type { RespDecoderOptions, RespValue } from './resp/types.js';
export type { CommandOptions } from './transport/command.js';
export type {
  ExponentialReconnect,
  ReconnectFunction,
  ReconnectOption,
} from './transport/reconnect-policy.js';
