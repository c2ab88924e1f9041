// A wait that an AbortSignal ends early: `reading`'s outcome, or the signal's reason once it aborts
// first, including when it already has (an abort between two awaits must not be missed). The
// listener is removed either way, so a long-lived signal gathers none.

export function untilAborted<T>(reading: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return reading;
  if (signal.aborted) {
    reading.catch(ignore);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    reading.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function ignore(): void {}
