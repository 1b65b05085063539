// sync.md and sync.json name each runtime as every table of the bench does: Fastly's figures come from
// Viceroy, its local runtime, not Fastly's edge, and say so.
import { describe, expect, it } from "vitest";
import { type SyncResult, syncJson, syncMarkdown } from "./report.ts";

const result = (runtime: SyncResult["runtime"]): SyncResult => ({
  runtime,
  calls: 84,
  removed: 1000,
  caughtUpMs: 89_300,
  changesPerSecond: 1120,
  prunedMs: 18_700,
  left: { total: 100_000, pastRetention: 0 },
});

describe("sync.md", () => {
  it("labels Fastly's row fastly-viceroy, and the others by their runtime", () => {
    const markdown = syncMarkdown(
      [result("node"), result("fastly")],
      { changes: 100_000, stale: 1000, old: 100_000 },
      "m",
      "d",
    );
    const rows = markdown.split("\n").filter((line) => /^\| (node|fastly)/.test(line));
    expect(rows.map((row) => row.split(" | ")[0])).toEqual(["| node", "| fastly-viceroy"]);
  });
});

describe("sync.json", () => {
  it("names Fastly's result fastly-viceroy beside the runtime started", () => {
    const json = JSON.parse(syncJson([result("node"), result("fastly")], { changes: 1, stale: 1, old: 1 }));
    expect(json.results.map(({ runtime, target }: { runtime: string; target: string }) => [runtime, target])).toEqual([
      ["node", "node"],
      ["fastly", "fastly-viceroy"],
    ]);
  });
});
