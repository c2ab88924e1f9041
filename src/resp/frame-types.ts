// RESP type bytes (PROTOCOL.md §1.1), shared by the decoder and its value assembler.

export const SIMPLE_STRING = 0x2b; // +
export const SIMPLE_ERROR = 0x2d; // -
export const INTEGER = 0x3a; // :
export const BULK_STRING = 0x24; // $
export const ARRAY = 0x2a; // *
export const NULL = 0x5f; // _
export const BOOLEAN = 0x23; // #
export const DOUBLE = 0x2c; // ,
export const BIG_NUMBER = 0x28; // (
export const BLOB_ERROR = 0x21; // !
export const VERBATIM = 0x3d; // =
export const MAP = 0x25; // %
export const SET = 0x7e; // ~
export const ATTRIBUTE = 0x7c; // |
export const PUSH = 0x3e; // >
export const STREAM_CHUNK = 0x3b; // ;
export const STREAM_END = 0x2e; // .
