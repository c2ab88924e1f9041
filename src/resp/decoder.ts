// Streaming RESP2/RESP3 decoder (PROTOCOL.md §1). Work in progress.
import type { RespDecoderOptions } from './types.js';

export class RespDecoder {
  constructor(readonly options: RespDecoderOptions) {}
  write(_chunk: Uint8Array): void {}
  reset(): void {}
}
