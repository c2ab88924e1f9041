// Decoding of short ASCII strings. Replies are mostly short strings (`OK`, small values, field
// names); `String.fromCharCode` with the bytes as arguments builds those two to four times faster
// than a native slice, whose call overhead dominates below ~16 bytes (measured on Node 20). Each
// length is spelled out so that every byte is loaded once and checked for ASCII without a loop.

const fromCharCode = String.fromCharCode;

/** Longest string `shortAsciiText` builds. */
export const SHORT_TEXT_MAX = 16;

/**
 * The text of `b[s, s + length)` when all of it is ASCII and `length <= SHORT_TEXT_MAX`;
 * `undefined` otherwise.
 */
export function shortAsciiText(b: Buffer, s: number, length: number): string | undefined {
  switch (length) {
    case 0:
      return '';
    case 1: {
      const c0 = b[s]!;
      return c0 < 0x80 ? fromCharCode(c0) : undefined;
    }
    case 2: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      return (c0 | c1) < 0x80 ? fromCharCode(c0, c1) : undefined;
    }
    case 3: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      return (c0 | c1 | c2) < 0x80 ? fromCharCode(c0, c1, c2) : undefined;
    }
    case 4: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      return (c0 | c1 | c2 | c3) < 0x80 ? fromCharCode(c0, c1, c2, c3) : undefined;
    }
    case 5: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      return (c0 | c1 | c2 | c3 | c4) < 0x80 ? fromCharCode(c0, c1, c2, c3, c4) : undefined;
    }
    case 6: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      return (c0 | c1 | c2 | c3 | c4 | c5) < 0x80 ? fromCharCode(c0, c1, c2, c3, c4, c5) : undefined;
    }
    case 7: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6) < 0x80 ? fromCharCode(c0, c1, c2, c3, c4, c5, c6) : undefined;
    }
    case 8: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7)
        : undefined;
    }
    case 9: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      const c8 = b[s + 8]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8)
        : undefined;
    }
    case 10: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      const c8 = b[s + 8]!;
      const c9 = b[s + 9]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8 | c9) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9)
        : undefined;
    }
    case 11: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      const c8 = b[s + 8]!;
      const c9 = b[s + 9]!;
      const c10 = b[s + 10]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8 | c9 | c10) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10)
        : undefined;
    }
    case 12: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      const c8 = b[s + 8]!;
      const c9 = b[s + 9]!;
      const c10 = b[s + 10]!;
      const c11 = b[s + 11]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8 | c9 | c10 | c11) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11)
        : undefined;
    }
    case 13: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      const c8 = b[s + 8]!;
      const c9 = b[s + 9]!;
      const c10 = b[s + 10]!;
      const c11 = b[s + 11]!;
      const c12 = b[s + 12]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8 | c9 | c10 | c11 | c12) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12)
        : undefined;
    }
    case 14: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      const c8 = b[s + 8]!;
      const c9 = b[s + 9]!;
      const c10 = b[s + 10]!;
      const c11 = b[s + 11]!;
      const c12 = b[s + 12]!;
      const c13 = b[s + 13]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8 | c9 | c10 | c11 | c12 | c13) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13)
        : undefined;
    }
    case 15: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      const c8 = b[s + 8]!;
      const c9 = b[s + 9]!;
      const c10 = b[s + 10]!;
      const c11 = b[s + 11]!;
      const c12 = b[s + 12]!;
      const c13 = b[s + 13]!;
      const c14 = b[s + 14]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8 | c9 | c10 | c11 | c12 | c13 | c14) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14)
        : undefined;
    }
    case 16: {
      const c0 = b[s]!;
      const c1 = b[s + 1]!;
      const c2 = b[s + 2]!;
      const c3 = b[s + 3]!;
      const c4 = b[s + 4]!;
      const c5 = b[s + 5]!;
      const c6 = b[s + 6]!;
      const c7 = b[s + 7]!;
      const c8 = b[s + 8]!;
      const c9 = b[s + 9]!;
      const c10 = b[s + 10]!;
      const c11 = b[s + 11]!;
      const c12 = b[s + 12]!;
      const c13 = b[s + 13]!;
      const c14 = b[s + 14]!;
      const c15 = b[s + 15]!;
      return (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8 | c9 | c10 | c11 | c12 | c13 | c14 | c15) < 0x80
        ? fromCharCode(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15)
        : undefined;
    }
    default:
      return undefined;
  }
}
