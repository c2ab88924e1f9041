// Waits for a condition of real servers (cluster agreement, a failover) by asking again at short
// intervals until a deadline: no fixed sleeps, and a timeout says what was still missing.

export interface WaitOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Pause between checks. Default 50 ms. */
  intervalMs?: number;
}

/**
 * Runs `check` until it returns `true`. Any other return (a string saying what is missing) or a
 * thrown error (a node still starting) means "not yet"; the last one is in the timeout's message.
 */
export async function waitUntil(
  description: string,
  check: () => Promise<true | string>,
  options: WaitOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastReason = 'never checked';
  for (;;) {
    try {
      const outcome = await check();
      if (outcome === true) return;
      lastReason = outcome;
    } catch (error) {
      lastReason = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${description}: ${lastReason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
