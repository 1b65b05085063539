import { describe, expect, it } from "vitest";
import { createBackground } from "../core/background/runner.ts";
import { parseSettings } from "../core/settings/settings.ts";
import { createMemoryKv } from "./kv/memory.ts";
import { lateBound } from "./late-bound.ts";

describe("lateBound", () => {
  it("refuses to be used before the stores' values are bound", async () => {
    const { parts } = lateBound();
    expect(() => parts.settings.linkCacheTtlSeconds).toThrow(/not read yet/);
    expect(() => parts.kv.get("k")).toThrow(/not read yet/);
    expect(() => parts.sql.query("SELECT 1")).toThrow(/not read yet/);
    expect(() => parts.background.intervalMs).toThrow(/not read yet/);
    expect(() => parts.background.runIfDue()).toThrow(/not read yet/);
  });

  it("forwards to what is bound", async () => {
    const { parts, bind } = lateBound();
    const kv = createMemoryKv();
    await kv.put("k", "v", { ttlSeconds: 60 });
    const queries: string[] = [];
    const sql = {
      async query(text: string) {
        queries.push(text);
        return [];
      },
      transaction: async () => [],
    };
    const settings = parseSettings({ AUTH_SECRET: "a".repeat(32), LINK_CACHE_TTL_SECONDS: "90" });
    const background = createBackground({ sql, kv, settings });
    bind({ sql, kv, settings, background });
    expect(parts.settings.linkCacheTtlSeconds).toBe(90);
    expect(parts.settings.auth).toBe(settings.auth);
    expect(await parts.kv.get("k")).toBe("v");
    await parts.sql.query("SELECT 1");
    expect(queries).toEqual(["SELECT 1"]);
    expect(parts.background.intervalMs).toBe(background.intervalMs);
  });
});
