/**
 * `fetch` for the SQL port's Neon client and the JWKS: every request goes to the named backend.
 * Compute's `fetch` ignores `signal`, so the abort is honoured here: the caller's promise rejects
 * with the signal's reason (the backend request itself cannot be cancelled; it ends with the
 * instance).
 */
export function fetchThroughBackend(backend: string, send: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const { signal, ...rest } = init ?? {};
    const withBackend = { ...rest, backend };
    const response = send(input, withBackend);
    return signal ? untilAborted(response, signal) : response;
  };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      signal.removeEventListener("abort", onAbort);
    });
  });
}
