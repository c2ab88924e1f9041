// RESP command encoder (PROTOCOL.md §1.5). Work in progress.
export type RespArgument = string | Uint8Array | number | bigint;
export function encodeCommand(_args: readonly RespArgument[]): Buffer {
  return Buffer.alloc(0);
}
export class CommandEncoder {}
