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

interface Instance {
  /** Resolves once the process has loaded and waits to be told when to start. */
  ready: Promise<void>;
  start(at: number): void;
  report: Promise<InstanceReport>;
}

function runInstance(settings: InstanceSettings): Instance {
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
    { cwd: PROJECT_ROOT, env: { ...process.env, NO_COLOR: "1" }, stdio: ["pipe", "pipe", "inherit"] },
  );
  let out = "";
  let ready = () => {};
  child.stdout.on("data", (chunk) => {
    out += chunk;
    if (out.startsWith("ready\n")) ready();
  });
  const report = new Promise<InstanceReport>((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out.slice("ready\n".length)) as InstanceReport)
        : reject(new Error(`instance exited ${code}`)),
    ),
  );
  return {
    ready: Promise.race([new Promise<void>((resolve) => (ready = resolve)), report.then(() => {})]),
    start: (at) => child.stdin.end(`${at}\n`),
    report,
  };
}

describe("Deno KV rate limits shared by several processes", () => {
  it("admit a caller's quota, and past it only what the instances admit within two intervals and syncs", async () => {
    const policy = { name: "caller-reads", limit: 150, windowSeconds: 60 };
    const settings = {
      kvPath: join(dir, "kv.sqlite"),
      requests: 400,
      paceMs: 5,
      intervalMs: 100,
      policy,
    };
    const instances = Array.from({ length: INSTANCES }, () => runInstance(settings));
    await Promise.all(instances.map((instance) => instance.ready));
    // Every process loaded: all start at once, a moment from now.
    const startAt = Date.now() + 100;
    for (const instance of instances) instance.start(startAt);
    const reports = await Promise.all(instances.map((instance) => instance.report));
    const admitted = reports.flatMap((r) => r.admittedAt).sort((a, b) => a - b);
    // Counted apart, each would admit the whole quota.
    expect(admitted.length).toBeLessThan(INSTANCES * policy.limit);
    expect(admitted.length).toBeGreaterThanOrEqual(policy.limit);
    const quotaReachedAt = admitted[policy.limit - 1]!;
    const longestSyncMs = Math.max(...reports.map((r) => r.longestSyncMs));
    // The interval as the instances kept it: a process that waited for a core synced that late.
    const intervalMs = settings.intervalMs + Math.max(...reports.map((r) => r.latestTimerMs));
    const lastAdmittedAt = admitted.at(-1)!;
    // One pace of slack: a request's time is taken after its count, in whole milliseconds.
    expect(lastAdmittedAt - quotaReachedAt).toBeLessThanOrEqual(2 * (intervalMs + longestSyncMs) + settings.paceMs);
    console.log(
      `${admitted.length} admitted of a quota of ${policy.limit} by ${INSTANCES} instances; the last ` +
        `${(lastAdmittedAt - quotaReachedAt).toFixed(0)} ms after the quota was reached (longest sync ` +
        `${longestSyncMs.toFixed(0)} ms, longest interval ${intervalMs.toFixed(0)} ms)`,
    );
  });
});
