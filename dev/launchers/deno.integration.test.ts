import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { kvPathFlags } from "../../edge/deno/kv-path.ts";
import { TEST_AUTH_SETTINGS } from "../support/tokens.ts";
import { DENO_TASK_BIN, denoRunArgs, PROJECT_ROOT, startDenoRuntime, TASK_KV_PATH_FLAGS } from "./deno.ts";

describe("deno launcher", () => {
  it("runs the entry exactly as `deno task start` does, with the same permissions", () => {
    const config = JSON.parse(readFileSync(`${PROJECT_ROOT}/deno.json`, "utf8")) as { tasks: Record<string, string> };
    expect(config.tasks.start).toBe([DENO_TASK_BIN, ...denoRunArgs([TASK_KV_PATH_FLAGS])].join(" "));
  });

  it("grants read and write for DENO_KV_PATH only, and nothing for memory or Deno's default", () => {
    expect(kvPathFlags("/srv/kv.sqlite")).toEqual(["--allow-read=/srv/kv.sqlite", "--allow-write=/srv/kv.sqlite"]);
    for (const path of [undefined, "", ":memory:", "/srv/a,b.sqlite", "/srv/my kv.sqlite"]) {
      expect(kvPathFlags(path)).toEqual([]);
    }
  });

  it("grants no blanket permission", () => {
    const args = denoRunArgs();
    expect(args).not.toContain("--allow-all");
    expect(args).not.toContain("-A");
    expect(args.filter((arg) => /^--allow-(read|write|run|ffi|sys)/.test(arg) || arg === "--allow-env")).toEqual([]);
  });

  it("writes the log to a file nothing reads with log: file, prints nothing, and deletes it at close", async () => {
    const printed = vi.spyOn(console, "log");
    // No database behind it: /healthz needs none.
    const env = { ...TEST_AUTH_SETTINGS, DATABASE_URL: "postgres://u:p@127.0.0.1:9/db" };
    const runtime = await startDenoRuntime({ ...env, NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql" }, { log: "file" });
    try {
      expect((await fetch(`${runtime.url}/healthz`)).status).toBe(200);
      const logFile = runtime.logFile as string;
      await expect.poll(() => readFileSync(logFile, "utf8"), { timeout: 5_000 }).toMatch(/"route":"\/healthz"/);
      const [first] = readFileSync(logFile, "utf8").split("\n");
      expect(JSON.parse(first as string)).toEqual({ event: "listening", url: runtime.url });
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
      await runtime.close();
    }
    expect(existsSync(runtime.logFile as string)).toBe(false);
  });
});
