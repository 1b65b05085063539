// `npm run bench -- --compare OLD.json NEW.json` and `--html FILE` read saved runs: a file that
// cannot be read or is not a run, or an option they would not use, is refused in one line naming
// it (exit 2), never with a stack trace and never ignored.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript } from "./lib/run-script.ts";

const SAVED = "bench/results/bench.json";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "saved-runs-"));
  await writeFile(join(dir, "broken.json"), "{ not json");
  await writeFile(join(dir, "other.json"), JSON.stringify({ options: {} }));
  // A run saved without each round's figures, as bench.json was before it kept them.
  await writeFile(
    join(dir, "no-rounds.json"),
    JSON.stringify({ results: [{ target: "node", operation: "link-hit" }] }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The first line of stderr, and whether a stack trace followed it anywhere. */
const refusal = (stderr: string) => ({ first: stderr.split("\n")[0], stack: /\n\s+at /.test(stderr) });

describe("--compare", () => {
  it.each([
    ["missing.json", "cannot be read"],
    ["broken.json", "not JSON"],
    ["other.json", "not a bench.json"],
    ["no-rounds.json", "no rounds to compare"],
  ])(
    "refuses %s in one line naming it",
    async (name, reason) => {
      const path = join(dir, name);
      const run = await runScript("bench/bench.ts", ["--compare", SAVED, path]);
      expect(run.code).toBe(2);
      expect(refusal(run.stderr)).toEqual({ first: expect.stringContaining(`${path}: ${reason}`), stack: false });
    },
    60_000,
  );

  it("refuses an option it would not use, by name, instead of ignoring it", async () => {
    const run = await runScript("bench/bench.ts", ["--compare", SAVED, SAVED, "--rounds", "5"]);
    expect(run.code).toBe(2);
    expect(refusal(run.stderr)).toEqual({ first: expect.stringContaining("--rounds"), stack: false });
  }, 60_000);

  it("still takes --noise beside the two files", async () => {
    const run = await runScript("bench/bench.ts", ["--compare", SAVED, SAVED, "--noise", "10"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("within ±10 %");
  }, 60_000);
});

describe("--html", () => {
  it.each([
    ["missing.json", "cannot be read"],
    ["broken.json", "not JSON"],
  ])(
    "refuses %s in one line naming it",
    async (name, reason) => {
      const path = join(dir, name);
      const run = await runScript("bench/bench.ts", ["--html", path]);
      expect(run.code).toBe(2);
      expect(refusal(run.stderr)).toEqual({ first: expect.stringContaining(`${path}: ${reason}`), stack: false });
    },
    60_000,
  );

  it("refuses a run's option beside it, by name, instead of ignoring it", async () => {
    const run = await runScript("bench/bench.ts", ["--html", join(dir, "missing.json"), "--requests", "5"]);
    expect(run.code).toBe(2);
    expect(refusal(run.stderr)).toEqual({ first: expect.stringContaining("--requests"), stack: false });
  }, 60_000);
});
