// Options that would mean nothing in the run asked for are refused by name rather than ignored:
// those that sign in to deployments without --target (the bench signs its own tokens), and the
// pause before cold requests without any cold request.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runScript } from "./lib/run-script.ts";

const TINY = ["--runtimes", "node", "--operations", "link-hit", "--requests", "20", "--rounds", "1", "--warmup", "0"];

it.each([
  ["--token", "eyJ.x.y"],
  ["--sign-with", "bench-key.pem"],
  ["--kid", "bench-1"],
])(
  "refuses %s without --target, naming it, before anything starts",
  async (option, value) => {
    const out = await mkdtemp(join(tmpdir(), "local-options-"));
    try {
      const args = [...TINY, "--staleness", "0", option, value, "--out", out];
      const run = await runScript("bench/bench.ts", args, { DATABASE_URL: undefined });
      expect(run.code).toBe(2);
      expect(run.stderr.split("\n")[0]).toContain(option);
      expect(await readdir(out)).toEqual([]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  },
  180_000,
);

it("refuses --idle without --cold, naming both, before anything starts", async () => {
  const out = await mkdtemp(join(tmpdir(), "local-options-"));
  try {
    const run = await runScript("bench/bench.ts", [...TINY, "--idle", "5", "--out", out], { DATABASE_URL: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toMatch(/--idle.*--cold/);
    expect(await readdir(out)).toEqual([]);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}, 180_000);
