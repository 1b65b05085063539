// The typed client against the app in-process: a text/csv body (the asset import) reaches the
// API as the CSV it is, not as a JSON string.
import { createClient } from "edge-race-free/client";
import { describe, expect, it } from "vitest";
import { createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { signToken, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";

// No row of the import below is valid, so the database is never asked anything.
const unused = () => Promise.reject(new Error("unexpected SQL"));
const app = createApp({
  sql: { query: unused, transaction: unused } as unknown as Sql,
  kv: createMemoryKv(),
  settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET }),
  runtime: "node",
  logger: silentLogger,
});

describe("the typed client", () => {
  it("sends an asset import's CSV as written", async () => {
    const api = createClient({
      baseUrl: "http://api.test",
      token: await signToken(),
      fetch: async (r) => app.fetch(r),
    });
    const { data, error } = await api.POST("/v1/assets/import", {
      body: "id,name,material,source_etag\n..,Chair,oak,abc\n",
      headers: { "content-type": "text/csv" },
    });
    expect(error).toBeUndefined();
    expect(data?.results).toEqual([{ line: 2, id: "..", outcome: "invalid", errors: expect.any(Array) }]);
  });
});
