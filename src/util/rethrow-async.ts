// Surfacing an error from a callback the library must not let fail its caller: a throwing
// transition listener, a subscription restore nobody handles.

/**
 * Rethrows `error` from a microtask, as `node:diagnostics_channel` does with a throwing
 * subscriber: the code that called out is unaffected, and the bug surfaces as an uncaught
 * exception instead of vanishing.
 */
export function rethrowAsync(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
