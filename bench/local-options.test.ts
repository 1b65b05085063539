// The options that sign in to deployments mean nothing to the runtimes the bench starts (it signs
// its own tokens): given without --target, they are refused by name rather than ignored.
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
