// `npm run race` with tiny settings: the naive versions must show their violations, the safe
// ones none, and the throughput comparison must come out complete and correct.
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWithPostgres } from "../dev/support/postgres.ts";
import { runBenchScript, runScript, type ScriptRun } from "./lib/run-script.ts";

interface RaceJson {
  problems: {
    problem: string;
    variant: "naive" | "safe";
    attempts: number;
    succeeded: number;
    failed: number;
    violations: number;
  }[];
  numbering: {
    scenario: string;
    strategy: string;
    medianPerSecond: number;
    ratioToCeiling: number;
    errors: number;
    brokenTenants: number | null;
  }[];
}

describeWithPostgres("npm run race (tiny settings)", () => {
  let out: string;
  let run: ScriptRun;
  let result: RaceJson;

  beforeAll(async () => {
    const args = [
      "--targets",
      "4",
      "--contenders",
      "4",
      "--workers",
      "2",
      "--tenants",
      "4",
      "--duration",
      "150",
      "--rounds",
      "1",
    ];
    ({ out, result, ...run } = await runBenchScript<RaceJson>("race", args, { DATABASE_URL: undefined }));
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it.each(["links", "numbering", "assets"])("%s: the naive version breaks, the safe one holds", (problem) => {
    const naive = result.problems.find((p) => p.problem === problem && p.variant === "naive")!;
    const safe = result.problems.find((p) => p.problem === problem && p.variant === "safe")!;
    expect(naive.attempts).toBe(16);
    expect(safe.attempts).toBe(16);
    expect(naive.violations).toBeGreaterThan(0);
    expect(safe.violations).toBe(0);
    expect(safe.failed).toBe(0);
  });

  it("numbers with every strategy in both scenarios, gapless, as a ratio to the ceiling", () => {
    expect(result.numbering).toHaveLength(8);
    for (const summary of result.numbering) {
      expect(summary.medianPerSecond).toBeGreaterThan(0);
      expect(summary.errors).toBe(0);
      expect(summary.brokenTenants).toBe(summary.strategy === "ceiling" ? null : 0);
      expect(summary.ratioToCeiling).toBeGreaterThan(0);
    }
    const ceilings = result.numbering.filter((s) => s.strategy === "ceiling");
    expect(ceilings.map((s) => s.ratioToCeiling)).toEqual([1, 1]);
  });

  it("says its numbering ran too short and in too few rounds, in its report and on stderr", async () => {
    const markdown = await readFile(join(out, "race.md"), "utf8");
    for (const warning of [/WARNING: numbering ran 150 ms per strategy and round/, /WARNING: 1 round\(s\)/]) {
      expect(markdown).toMatch(warning);
      expect(run.stderr).toMatch(warning);
    }
  });

  it("prints the tables and writes them as Markdown", async () => {
    expect(run.stdout).toMatch(/duplicate owners/);
    expect(run.stdout).toMatch(/lost updates/);
    expect(await readFile(join(out, "race.md"), "utf8")).toMatch(/\| scenario \| strategy \|/);
  });
});

describeWithPostgres("npm run race --skip-numbering", () => {
  it("prints and writes the races only, with no empty numbering table", async () => {
    const args = ["--problems", "links", "--targets", "2", "--contenders", "4", "--skip-numbering"];
    const { out, stdout } = await runBenchScript<RaceJson>("race", args, { DATABASE_URL: undefined });
    try {
      expect(stdout).toMatch(/duplicate owners/);
      expect(stdout).not.toMatch(/Numbering throughput/);
      expect(await readFile(join(out, "race.md"), "utf8")).not.toMatch(/Numbering throughput/);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("npm run race without PostgreSQL", () => {
  it("says that races need a real PostgreSQL and runs nothing", async () => {
    // Port 1 on loopback: nothing listens there.
    const run = await runScript("bench/race.ts", ["--out", join(tmpdir(), "race-never-written")], {
      DATABASE_URL: undefined,
      TEST_POSTGRES_URL: "postgres://postgres@127.0.0.1:1/postgres",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/needs a real PostgreSQL/);
    expect(run.stdout).toMatch(/Nothing was run/);
  }, 60_000);
});
