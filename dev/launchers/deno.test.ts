import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DENO_TASK_BIN, denoRunArgs, PROJECT_ROOT } from "./deno.ts";

describe("deno launcher", () => {
  it("runs the entry exactly as `deno task start` does, with the same permissions", () => {
    const config = JSON.parse(readFileSync(`${PROJECT_ROOT}/deno.json`, "utf8")) as { tasks: Record<string, string> };
    expect(config.tasks.start).toBe([DENO_TASK_BIN, ...denoRunArgs()].join(" "));
  });

  it("grants no blanket permission", () => {
    const args = denoRunArgs();
    expect(args).not.toContain("--allow-all");
    expect(args).not.toContain("-A");
    expect(args.filter((arg) => /^--allow-(read|write|run|ffi|sys)/.test(arg) || arg === "--allow-env")).toEqual([]);
  });
});
