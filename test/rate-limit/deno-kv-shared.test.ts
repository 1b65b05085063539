// The bound docs/limits.md states for Deno KV's rate limits, shown with real Deno: several
// processes, each an instance deciding on its own and syncing with one Deno KV file every
// interval. Once the instances together have admitted a caller's quota, each learns it within two
// intervals and two syncs; what they admit meanwhile is the excess, and nothing after.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DENO_BIN, PROJECT_ROOT } from "../../dev/launchers/deno.ts";
import type { InstanceReport, InstanceSettings } from "./deno-kv-instance.ts";

const INSTANCES = 3;
const dir = mkdtempSync(join(tmpdir(), "rate-limit-kv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runInstance(settings: InstanceSettings): Promise<InstanceReport> {
  const child = spawn(
    DENO_BIN,
    [
      "run",
      "--no-check",
      "--unstable-kv",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "test/rate-limit/deno-kv-instance.ts",
      JSON.stringify(settings),
    ],
    { cwd: PROJECT_ROOT, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as InstanceReport) : reject(new Error(`instance exited ${code}`)),
    ),
  );
}

describe("Deno KV rate limits shared by several processes", () => {
  it("admit a caller's quota, and past it only what the instances admit within two intervals and syncs", async () => {
    const policy = { name: "caller-reads", limit: 150, windowSeconds: 60 };
    const settings = {
      kvPath: join(dir, "kv.sqlite"),
      // Time for every process to start before the first request.
      startAt: Date.now() + 4_000,
      requests: 400,
      paceMs: 5,
      intervalMs: 100,
      policy,
    };
    const reports = await Promise.all(Array.from({ length: INSTANCES }, () => runInstance(settings)));
    const admitted = reports.flatMap((r) => r.admittedAt).sort((a, b) => a - b);
    // Counted apart, each would admit the whole quota.
    expect(admitted.length).toBeLessThan(INSTANCES * policy.limit);
    expect(admitted.length).toBeGreaterThanOrEqual(policy.limit);
    const quotaReachedAt = admitted[policy.limit - 1]!;
    const longestSyncMs = Math.max(...reports.map((r) => r.longestSyncMs));
    const lastAdmittedAt = admitted.at(-1)!;
    // One pace of slack: a request's time is taken after its count, in whole milliseconds.
    expect(lastAdmittedAt - quotaReachedAt).toBeLessThanOrEqual(
      2 * (settings.intervalMs + longestSyncMs) + settings.paceMs,
    );
    console.log(
      `${admitted.length} admitted of a quota of ${policy.limit} by ${INSTANCES} instances; the last ` +
        `${(lastAdmittedAt - quotaReachedAt).toFixed(0)} ms after the quota was reached (longest sync ${longestSyncMs.toFixed(0)} ms)`,
    );
  });
});
