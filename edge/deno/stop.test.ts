import { describe, expect, it } from "vitest";
import { closeForStop } from "./stop.ts";

describe("the Deno entry's stop", () => {
  it("adds the admitted rate-limit counts while requests still run, and again once they ended", async () => {
    const flushes: string[] = [];
    let endRequests = () => {};
    const shutdown = new Promise<void>((resolve) => (endRequests = resolve));
    const stopped = closeForStop({
      server: { shutdown: () => shutdown },
      rateLimiter: { flush: async () => void flushes.push("counts") },
      flushTraces: async () => void flushes.push("spans"),
    });
    await new Promise((resolve) => setImmediate(resolve));
    // A request longer than the platform's grace (5 s on Deno Deploy) must not cost the counts.
    expect(flushes).toEqual(["counts"]);
    endRequests();
    await stopped;
    expect(flushes).toEqual(["counts", "counts", "spans"]);
  });
});
