import { describe, expect, it } from "vitest";
import { parseSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { lateBoundDeps } from "./late-deps.ts";

describe("lateBoundDeps", () => {
  it("refuses to be used before the stores' values are bound", async () => {
    const { deps } = lateBoundDeps();
    expect(() => deps.settings.linkCacheTtlSeconds).toThrow(/not read yet/);
    expect(() => deps.kv.get("k")).toThrow(/not read yet/);
    expect(() => deps.sql.query("SELECT 1")).toThrow(/not read yet/);
  });

  it("forwards to what is bound", async () => {
    const { deps, bind } = lateBoundDeps();
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
    bind({ sql, kv, settings });
    expect(deps.settings.linkCacheTtlSeconds).toBe(90);
    expect(deps.settings.auth).toBe(settings.auth);
    expect(await deps.kv.get("k")).toBe("v");
    await deps.sql.query("SELECT 1");
    expect(queries).toEqual(["SELECT 1"]);
  });
});
