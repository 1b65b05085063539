// The commands that open DATABASE_URL say in one line why they cannot (not a postgres:// URL, no
// PostgreSQL answering there), never with a stack trace.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScript } from "./lib/run-script.ts";

/** Nothing listens on port 1 of the loopback. */
const UNREACHABLE = "postgres://postgres@127.0.0.1:1/postgres";

const COMMANDS: [string, string[]][] = [
  ["bench/bench.ts", ["--runtimes", "node", "--operations", "link-hit", "--requests", "20", "--warmup", "0"]],
  ["bench/sync.ts", ["--runtimes", "node", "--changes", "1", "--stale", "0", "--old", "0"]],
  ["bench/race.ts", ["--problems", "links", "--skip-numbering"]],
];

describe.each(COMMANDS)("%s", (script, args) => {
  it.each([
    ["mysql://root@127.0.0.1/x", /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/],
    [UNREACHABLE, /unreachable/],
  ])(
    "DATABASE_URL=%s: one line saying why, exit 1",
    async (url, reason) => {
      const run = await runScript(script, [...args, "--out", join(tmpdir(), "database-url-never-written")], {
        DATABASE_URL: url,
      });
      expect(run.code).toBe(1);
      expect(run.stderr.trimEnd().split("\n").at(-1)).toMatch(reason);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    },
    120_000,
  );
});

it("bench/migration.ts: DATABASE_URL with no PostgreSQL answering, one line saying why, exit 1", async () => {
  const args = [
    "--links",
    "1",
    "--documents",
    "0",
    "--writers",
    "1",
    "--out",
    join(tmpdir(), "database-url-never-written"),
  ];
  const run = await runScript("bench/migration.ts", args, { DATABASE_URL: UNREACHABLE });
  expect(run.code).toBe(1);
  expect(run.stderr.trimEnd().split("\n").at(-1)).toMatch(/unreachable/);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}, 120_000);
