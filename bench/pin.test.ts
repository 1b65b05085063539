// `npm run bench -- --pin`: the bench's process on CPU 0, every process it started on the others,
// said in bench.json and the report. Tiny settings: that a pinned run measures as any run does.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBenchScript, type ScriptRun } from "./lib/run-script.ts";
import { pinning } from "./load/pin.ts";

interface PinnedBenchJson {
  results: { target: string; operation: string; requests: number; errors: number }[];
  pinned: { bench: string; servers: string } | null;
}

describe("npm run bench -- --pin (tiny settings, node)", () => {
  let out: string;
  let run: ScriptRun;
  let result: PinnedBenchJson;

  beforeAll(async () => {
    const args = ["--pin", "--runtimes", "node", "--operations", "kv-baseline,link-hit", "--requests", "20"];
    const tiny = ["--rounds", "2", "--warmup", "2", "--concurrency", "1", "--staleness", "0"];
    ({ out, result, ...run } = await runBenchScript<PinnedBenchJson>("bench", [...args, ...tiny], {
      DATABASE_URL: undefined,
    }));
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it("pins the bench to CPU 0 and the servers to the rest, and measures every request", () => {
    const expected = pinning();
    expect(result.pinned).toEqual(expected);
    expect(run.stderr).toContain(`Pinned: the bench on CPU 0, every server on CPU ${expected.servers}`);
    for (const operation of ["kv-baseline", "link-hit"]) {
      expect(result.results.find((r) => r.operation === operation)).toMatchObject({ requests: 40, errors: 0 });
    }
  });
});
