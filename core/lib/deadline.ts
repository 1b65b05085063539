// How long a call to a store may take: the KV stores (a read cache, so a slow one is a miss) and
// the SQL port (a round trip with no answer is abandoned, its outcome unknown) alike.

/** A `DOMException` named TimeoutError, as `AbortSignal.timeout` aborts with. */
export const timeoutError = (message = "The operation timed out.") => new DOMException(message, "TimeoutError");

/**
 * `call(signal)`, or a TimeoutError once `ms` pass without its answer. The signal aborts then,
 * so work that takes one (a fetch) is abandoned, not left running; a call that declares no
 * parameter gets none. The timer ends with the call:
 * a timer still pending after a request can keep its instance from serving the next one (a
 * runtime may end an instance that leaves one).
 */
export async function withDeadline<T>(call: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  // Only a call that takes the signal gets one: a KV read takes none, and Node makes every
  // AbortSignal a transferable object, among the dearest allocations of a cached lookup.
  const controller = call.length > 0 ? new AbortController() : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const reason = timeoutError(`no answer within ${ms} ms`);
      controller?.abort(reason);
      reject(reason);
    }, ms);
  });
  try {
    // Through a promise, so a call that throws synchronously is caught like one that rejects.
    const answer = Promise.resolve().then(() => (controller ? call(controller.signal) : (call as () => Promise<T>)()));
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
