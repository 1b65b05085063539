// `npm run bench:sync`'s backlog: --stale counts changes among the --changes, so it cannot
// exceed them (the feed would name only --changes of the cached entries, and sync.md would
// report "10 of 20 removed" as if the sync had missed some): refused in one line naming it.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runScript } from "../lib/run-script.ts";

it("refuses more --stale than --changes, naming both, before anything starts", async () => {
  const out = await mkdtemp(join(tmpdir(), "sync-options-"));
  try {
    const args = ["--changes", "10", "--stale", "20", "--old", "0", "--runtimes", "node", "--out", out];
    const run = await runScript("bench/sync.ts", args, { DATABASE_URL: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toMatch(/^--stale .*--changes/);
    expect(await readdir(out)).toEqual([]);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}, 180_000);
