// What the app answers, read against the document it serves: every header an answer carries is one
// the document names for that answer.
import { describe, expect, it } from "vitest";
import { bearer, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { createMemoryRateLimiter } from "../../edge/rate-limit/memory.ts";
import { createApp } from "../app.ts";
import { silentLogger } from "../log.ts";
import { DatabaseUnavailableError, type Sql } from "../ports/sql.ts";
import { parseSettings } from "../settings/settings.ts";

type Settings = Record<string, string>;

function appWith(failure: Error, settings: Settings = {}) {
  const fail = () => Promise.reject(failure);
  return createApp({
    sql: { query: fail, transaction: fail } as unknown as Sql,
    kv: createMemoryKv(),
    settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET, ...settings }),
    runtime: "node",
    logger: silentLogger,
    rateLimiter: createMemoryRateLimiter(),
  });
}

const down = new DatabaseUnavailableError("connection refused");

interface Documented {
  responses: Record<string, { headers?: Record<string, unknown> }>;
}

async function documentOf(app: ReturnType<typeof appWith>) {
  return (await (await app.request("/openapi.json")).json()) as {
    paths: Record<string, Record<string, Documented>>;
  };
}

describe("the answers the document describes", () => {
  it("names Server-Timing among the headers of every answer, as SERVER_TIMING=on sends it", async () => {
    const app = appWith(down, { SERVER_TIMING: "on" });
    const { paths } = await documentOf(app);
    const answers: [string, string, string, RequestInit?][] = [
      ["/healthz", "get", "/healthz"],
      ["/readyz", "get", "/readyz"],
      ["/v1/me/links", "get", "/v1/me/links", { headers: await bearer() }],
      ["/v1/me/links", "get", "/v1/me/links"],
    ];
    for (const [path, method, url, init] of answers) {
      const response = await app.request(url, init);
      expect(response.headers.get("server-timing"), url).toBeTruthy();
      const documented = paths[path]![method]!.responses[String(response.status)]!;
      expect(Object.keys(documented.headers ?? {}), `${url} ${response.status}`).toContain("server-timing");
    }
  });
});
