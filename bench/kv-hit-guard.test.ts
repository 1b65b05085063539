// A KV hit reaches neither the database nor a KV write, on every runtime the bench starts: the
// bench's own probes count it (its Neon endpoint the statements each runtime sends during the
// phase; its in-process probe the KV calls of core, which every runtime runs unchanged).
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBenchScript } from "./lib/run-script.ts";

interface GuardJson {
  targets: { target: string; available: boolean; reason?: string }[];
  usageProbe: Record<string, { kv: Record<"get" | "put" | "delete" | "list", number> } | string>;
  results: { target: string; operation: string; requests: number; errors: number; roundTripsPerRequest: number }[];
}

const RUNTIMES = ["node", "cloudflare", "deno"];

describe("a KV hit on every runtime", () => {
  let out: string;
  let result: GuardJson;

  beforeAll(async () => {
    const args = ["--runtimes", RUNTIMES.join(","), "--operations", "link-hit", "--requests", "20"];
    const tiny = ["--rounds", "1", "--warmup", "2", "--concurrency", "2", "--staleness", "0"];
    // No sync of the change feed during the run: its statements would be counted with the lookups'.
    const env = { DATABASE_URL: undefined, LINK_SYNC_INTERVAL_SECONDS: "3600" };
    ({ out, result } = await runBenchScript<GuardJson>("bench", [...args, ...tiny], env));
  }, 300_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it("makes no database round trip", () => {
    expect(result.targets.map((t) => [t.target, t.available, t.reason])).toEqual(
      RUNTIMES.map((runtime) => [runtime, true, undefined]),
    );
    const hits = result.results.filter((r) => r.operation === "link-hit");
    expect(hits.map((r) => [r.target, r.requests, r.errors, r.roundTripsPerRequest])).toEqual(
      RUNTIMES.map((runtime) => [runtime, 20, 0, 0]),
    );
  });

  it("makes one KV get and no KV write", () => {
    expect(result.usageProbe["link-hit"]).toEqual({
      kv: { get: 1, put: 0, delete: 0, list: 0 },
      bytesOut: expect.any(Number),
    });
  });
});
