// How long a call to a store may take: the KV stores (a read cache, so a slow one is a miss) and
// the SQL port (a round trip with no answer is abandoned, its outcome unknown) alike.

/** A `DOMException` named TimeoutError, as `AbortSignal.timeout` aborts with. */
export const timeoutError = (message = "The operation timed out.") => new DOMException(message, "TimeoutError");

/**
 * `call(signal)`, or a TimeoutError once `ms` pass without its answer. The signal aborts then,
 * so work that takes one (a fetch) is abandoned, not left running. The timer ends with the call:
 * a timer still pending after a request can keep its instance from serving the next one (a
 * runtime may end an instance that leaves one).
 */
export async function withDeadline<T>(call: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const reason = timeoutError(`no answer within ${ms} ms`);
      controller.abort(reason);
      reject(reason);
    }, ms);
  });
  try {
    // Through a promise, so a call that throws synchronously is caught like one that rejects.
    return await Promise.race([Promise.resolve().then(() => call(controller.signal)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
