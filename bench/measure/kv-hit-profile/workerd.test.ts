// `npm run measure:kv-hit-profile` on workerd, end to end: the Worker's bare get and KV hit, each
// profiled through the inspector Miniflare opens, every frame read back through the bundle's map.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

/** The table's cloudflare rows: part → [bare KV get, KV hit] µs per request. */
function cloudflareRows(table: string): Map<string, number[]> {
  const rows = table.split("\n").filter((line) => line.startsWith("| cloudflare |"));
  return new Map(
    rows.map((line) => {
      const [, , part, ...values] = line.split("|").map((cell) => cell.trim());
      return [part!, values.slice(0, 2).map(Number)];
    }),
  );
}

describe("the KV-hit profile on workerd", () => {
  it("splits the Worker's own time by the files it was written in", { timeout: 120_000 }, async () => {
    const { stdout } = await run(
      "npm",
      ["run", "-s", "measure:kv-hit-profile", "--", "--runtimes", "cloudflare", "--requests", "300", "--warmup", "100"],
      { maxBuffer: 1 << 24 },
    );
    const rows = cloudflareRows(stdout);
    // The bare get's read is the KV adapter's (edge/kv/workers-kv.ts), found only through the map.
    expect(rows.get("KV adapter")![0]).toBeGreaterThan(0);
    // Only the service looks a link up, checks a token and counts.
    for (const part of ["link lookup", "token check", "rate limiting"]) {
      expect(rows.get(part)).toEqual([0, expect.any(Number)]);
      expect(rows.get(part)![1]).toBeGreaterThan(0);
    }
    // Which column costs more is the benchmark's to say, not a test's on a shared machine; the
    // table's own arithmetic is: each column's parts add up to its sum, to the rounding.
    const parts = [...rows].filter(([part]) => part !== "**all**");
    for (const column of [0, 1]) {
      const summed = parts.reduce((sum, [, values]) => sum + values[column]!, 0);
      expect(Math.abs(summed - rows.get("**all**")![column]!)).toBeLessThanOrEqual(0.05 * parts.length);
    }
  });
});
