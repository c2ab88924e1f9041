// `respire/resp`: the streaming RESP3 decoder and the command encoder.

export { RespireProtocolError, RespireServerError } from '../errors.js';
export { RespDecoder } from './decoder.js';
export { CommandEncoder, type CommandEncoderOptions, encodeCommand, type RespArgument } from './encoder.js';
export type { RespDecoderOptions, RespValue } from './types.js';
