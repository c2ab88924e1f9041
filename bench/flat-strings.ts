// Strings for benchmark inputs, built flat. V8 represents `'x'.repeat(n)` and any `+` or template
// literal whose result has 13 or more characters as a rope (a ConsString); the first read flattens
// it, so a timed loop over rope inputs measures V8's string layout rather than the code under test.

/** `length` copies of one ASCII character as a flat string (`'x'.repeat(n)` would be a rope). */
export function flatString(length: number, character = 'x'): string {
  return Buffer.alloc(length, character).toString('latin1');
}

/** `text` copied into a new flat string. */
export function flatten(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
