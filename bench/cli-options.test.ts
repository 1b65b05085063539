// The bench's own options: --help prints the usage, with each number's bounds, and runs nothing;
// an unknown option is refused; --db-rtt holds every round trip to the Neon endpoint for the given
// time, so an edge-to-database distance can be benched.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalStack, startLocalStack } from "../dev/local-stack/stack.ts";
import { createNeonSql } from "../edge/neon/neon-sql.ts";
import { runScript } from "./lib/run-script.ts";

/** The usage's options that take a number, each with its help (continuation lines included). */
function numberOptions(usage: string): { option: string; help: string }[] {
  const blocks = usage.split(/\n(?= {1,2}--)/);
  return blocks.flatMap((block) => {
    const option = /^ {1,2}(--\S+) (N|MS|SECONDS|PCT)\b/.exec(block)?.[1];
    return option ? [{ option, help: block }] : [];
  });
}

describe("the options that take a number state their bounds", () => {
  it("finds them in a usage, continuation lines included", () => {
    const usage =
      "npm run x\n  --rate N    per second, each\n              timed (≥ 1, no default)\n  --out DIR   there";
    expect(numberOptions(usage)).toEqual([{ option: "--rate", help: expect.stringMatching(/no default\)$/) }]);
  });
});

describe.each(["bench/bench.ts", "bench/race.ts", "bench/sync.ts", "bench/migration.ts", "bench/cross-check.ts"])(
  "%s",
  (script) => {
    it("--help prints the usage with each number's bounds and default, exits 0 and writes nothing", async () => {
      const out = await mkdtemp(join(tmpdir(), "help-"));
      try {
        const run = await runScript(script, ["--help", "--out", out], { DATABASE_URL: undefined });
        expect(run.code).toBe(0);
        expect(run.stdout).toMatch(/^npm run (bench|race|bench:sync|bench:migration|bench:cross-check) -- \[options\]/);
        if (!script.endsWith("cross-check.ts"))
          expect(run.stdout).toMatch(/--out DIR .*default bench\/out, which git ignores/);
        const numbers = numberOptions(run.stdout);
        expect(numbers.length).toBeGreaterThanOrEqual(3);
        const unbounded = numbers.filter(({ help }) => !/\((≥ [\d,]+|[\d,]+–[\d,]+), (default|no default)/.test(help));
        expect(unbounded.map(({ option }) => option)).toEqual([]);
        expect(await readdir(out)).toEqual([]);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    }, 60_000);

    it("answers an unknown option with one line and the usage (exit 2)", async () => {
      const run = await runScript(script, ["--no-such-option"], { DATABASE_URL: undefined });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^Unknown option '--no-such-option'.*\n\nnpm run /);
    }, 60_000);

    it("answers a value starting with a dash with one line and the usage (exit 2)", async () => {
      const run = await runScript(script, ["--out", "-x"], { DATABASE_URL: undefined });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^Option '--out' argument is ambiguous\.[^\n]*'--out=-XYZ'\.\n\nnpm run /);
    }, 60_000);
  },
);

describe.each([
  ["bench/measure/kv-hit-profile/run.ts", "npm run measure:kv-hit-profile", "--viceroy-requests"],
  ["bench/measure/startup.ts", "npm run measure:runtimes", "--runs"],
  ["bench/measure/fastly-startup.ts", "npx tsx bench/measure/fastly-startup.ts", "--runs"],
  ["bench/measure/endpoint-overhead.ts", "npx tsx bench/measure/endpoint-overhead.ts", "--rounds"],
  ["bench/measure/rate-limit-cost.ts", "npx tsx bench/measure/rate-limit-cost.ts", "--blocks"],
])("%s", (script, command, numberOption) => {
  it("--help prints the usage with each number's bounds and default, and starts nothing", async () => {
    const run = await runScript(script, ["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith(`${command} -- [options]\n`) || run.stdout.startsWith(`${command} [options]\n`)).toBe(
      true,
    );
    const numbers = numberOptions(run.stdout);
    expect(numbers.map(({ option }) => option)).toContain(numberOption);
    const unbounded = numbers.filter(({ help }) => !/\((≥ [\d,]+|[\d,]+–[\d,]+), (default|no default)/.test(help));
    expect(unbounded.map(({ option }) => option)).toEqual([]);
  }, 60_000);

  it("answers a number out of its bounds with one line naming it and the usage (exit 2)", async () => {
    const run = await runScript(script, [numberOption, "0"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^${numberOption} must be a whole number ≥ [\\d,]+\n\n${command} `));
  }, 60_000);
});

describe("the endpoint's round-trip delay (--db-rtt)", () => {
  const DELAY_MS = 120;
  let held: LocalStack;
  beforeAll(async () => {
    held = await startLocalStack({ roundTripDelayMs: DELAY_MS });
  }, 60_000);
  afterAll(async () => {
    await held?.close();
  });

  const timed = async (stack: LocalStack, roundTrips: number) => {
    const sql = createNeonSql({ databaseUrl: stack.databaseUrl, fetchEndpoint: stack.neonFetchEndpoint });
    const started = performance.now();
    for (let i = 0; i < roundTrips; i++)
      expect(await sql.query("SELECT $1::int AS n", [String(i)])).toEqual([{ n: i }]);
    return performance.now() - started;
  };

  it("holds each round trip at least that long, and answers the same", async () => {
    expect(await timed(held, 3)).toBeGreaterThanOrEqual(3 * DELAY_MS);
    expect(held.endpoint.statements()).toBe(3);
  });
});
