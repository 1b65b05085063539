/** How long a round trip may take by default, above the local endpoint's own limits (4 s queue, statement_timeout). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * `call` with a signal that aborts after `ms` (a TimeoutError, as `AbortSignal.timeout`'s), its
 * timer ended with the call: on Fastly a timer still pending after a request keeps its instance
 * from serving the next one (js-compute ends it).
 */
export async function withDeadline<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timeoutError()), ms);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

export const timeoutError = () => new DOMException("The operation timed out.", "TimeoutError");
