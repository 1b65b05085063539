// What the Deno entry does at SIGTERM or SIGINT, before it exits (edge/deno/index.ts).

export interface StoppingParts {
  server: { shutdown(): Promise<void> };
  rateLimiter: { flush(): Promise<void> };
  flushTraces(): Promise<void>;
}

/**
 * Stops serving, and gets the rate-limit counts and the spans out. The counts admitted so far go
 * at once, beside the wait for the requests still running: Deno Deploy ends an instance 5 s after
 * SIGINT, and a request running longer would otherwise cost them all. Then what the last requests
 * added, and their spans.
 */
export async function closeForStop({ server, rateLimiter, flushTraces }: StoppingParts): Promise<void> {
  await Promise.all([server.shutdown(), rateLimiter.flush()]);
  await Promise.all([rateLimiter.flush(), flushTraces()]);
}
