// `npm run measure:runtimes`: its stdout is its report alone, the runtimes' own request log lines
// (which the runtimes it launches write as they answer /healthz) kept out of it.
import { expect, it } from "vitest";
import { runScript } from "../lib/run-script.ts";

it("prints the bundle, the build and one line per runtime, and nothing the runtimes log", async () => {
  const run = await runScript("bench/measure/startup.ts", ["--runs", "1"]);
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.split("\n").filter(Boolean);
  expect(lines.filter((line) => line.startsWith("{"))).toEqual([]);
  expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([
    "Cloudflare",
    "Node",
    "start",
    "node",
    "cloudflare",
    "deno",
  ]);
}, 120_000);
