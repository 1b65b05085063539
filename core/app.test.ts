import { describe, expect, it } from "vitest";
import { bearer, TEST_AUTH_SECRET } from "../dev/support/tokens.ts";
import { createMemoryKv } from "../edge/kv/memory.ts";
import { expectProblem } from "../test/support/problems.ts";
import { createApp } from "./app.ts";
import { NEWEST_MIGRATION } from "./health/newest-migration.ts";
import { unrecognizedMethod } from "./http/methods.ts";
import { type Logger, silentLogger } from "./log.ts";
import { DatabaseError, DatabaseOutcomeUnknownError, DatabaseUnavailableError, type Sql } from "./ports/sql.ts";
import { parseSettings, SettingsError } from "./settings/settings.ts";

const settings = parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET });

function appWith(sql: Partial<Sql>, logger: Logger = silentLogger) {
  const unused = () => Promise.reject(new Error("unexpected SQL"));
  return createApp({
    sql: { query: unused, transaction: unused, ...sql } as Sql,
    kv: createMemoryKv(),
    settings,
    runtime: "node",
    logger,
  });
}

const down: Partial<Sql> = {
  query: () => Promise.reject(new DatabaseUnavailableError("connection refused")),
  transaction: () => Promise.reject(new DatabaseUnavailableError("connection refused")),
};

describe("app", () => {
  it("answers /healthz with the runtime, without touching the database", async () => {
    const response = await appWith(down).request("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", runtime: "node" });
  });

  it("answers /readyz 200 when the database answers", async () => {
    const app = appWith({ query: async () => [{ migrated: true, newest: NEWEST_MIGRATION }] as never });
    expect((await app.request("/readyz")).status).toBe(200);
  });

  it("answers /readyz 503 database_schema_behind while the database lacks the newest migration, logging which", async () => {
    const logged: Parameters<Logger["log"]>[] = [];
    const behind = { query: async () => [{ migrated: false, newest: "0017_timeouts_for_every_role.sql" }] as never };
    const response = await appWith(behind, { log: (...line) => void logged.push(line) }).request("/readyz");
    expect((await expectProblem(response, 503, "database_schema_behind")).runtime).toBe("node");
    expect(response.headers.get("retry-after")).toBe("5");
    expect(logged.filter(([level]) => level === "warn")).toEqual([
      ["warn", "database_schema_behind", { needs: NEWEST_MIGRATION, newest: "0017_timeouts_for_every_role.sql" }],
    ]);
  });

  it("answers /readyz 503 when it does not, logging why once per check", async () => {
    const logged: Parameters<Logger["log"]>[] = [];
    const app = appWith(down, { log: (...line) => void logged.push(line) });
    const responses = await Promise.all([app.request("/readyz"), app.request("/readyz")]);
    expect(responses.map((response) => response.status)).toEqual([503, 503]);
    // docs/API.md promises Retry-After: 5 here; any non-empty value (say "soon") passed before.
    expect(responses[0]!.headers.get("retry-after")).toBe("5");
    const warnings = logged.filter(([level]) => level === "warn");
    expect(warnings).toEqual([
      ["warn", "readiness_check_failed", { error: "DatabaseUnavailableError: connection refused" }],
    ]);
  });

  it("answers /readyz 503 saying the database refused the check, not that it cannot be reached, when it refuses it", async () => {
    const denied = () =>
      Promise.reject(new DatabaseError("permission denied for table schema_migrations", { code: "42501" }));
    const body = await expectProblem(await appWith({ query: denied }).request("/readyz"), 503, "database_unavailable");
    expect(body.detail).toBe("The database refused the readiness check: its readiness_check_failed warning says why.");
    const down503 = await expectProblem(await appWith(down).request("/readyz"), 503, "database_unavailable");
    expect(down503.detail).toBe("The database cannot be reached.");
  });

  it("answers /readyz 500 misconfigured naming DATABASE_URL when the database refuses the login", async () => {
    const refused = () => Promise.reject(new SettingsError("DATABASE_URL", "was refused by the database at login"));
    const response = await appWith({ query: refused }).request("/readyz");
    const body = await expectProblem(response, 500, "misconfigured");
    expect(body.setting).toBe("DATABASE_URL");
  });

  it("answers an unknown route with a 404 problem", async () => {
    await expectProblem(await appWith(down).request("/nope"), 404, "not_found");
  });

  it("answers a method no route implements with 501 in the words Node's parser answers it, echoing no method", async () => {
    const method = "BREW".repeat(1000);
    const problem = await expectProblem(
      await appWith(down).request("/v1/me/links", { method }),
      501,
      "not_implemented",
    );
    expect(problem.detail).toBe(unrecognizedMethod().detail);
    expect(problem.detail).not.toContain("BREW");
  });

  it("requires a token under /v1", async () => {
    const body = await expectProblem(await appWith(down).request("/v1/me/links"), 401, "unauthorized");
    expect(JSON.stringify(body)).not.toContain("stack");
  });

  it("maps an unreachable database to 503 database_unavailable with Retry-After", async () => {
    const response = await appWith(down).request("/v1/me/links", { headers: await bearer() });
    await expectProblem(response, 503, "database_unavailable");
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("tells a write of unknown outcome to retry with its Idempotency-Key only when its route honours the key it carried", async () => {
    const lost = () => Promise.reject(new DatabaseOutcomeUnknownError("connection lost"));
    const app = appWith({ query: lost, transaction: lost });
    const headers = { ...(await bearer()), "content-type": "application/json" };
    const body = JSON.stringify({ contractId: "C-7" });
    const keyed = await app.request("/v1/documents", {
      method: "POST",
      headers: { ...headers, "idempotency-key": "order-7" },
      body,
    });
    expect((await expectProblem(keyed, 504, "database_outcome_unknown")).detail).toContain(
      "Retry with the same Idempotency-Key",
    );
    const link = await app.request("/v1/links/github/octo", { method: "PUT", headers });
    const detail = (await expectProblem(link, 504, "database_outcome_unknown")).detail;
    expect(detail).not.toContain("Idempotency-Key");
    expect(detail).toContain("Check before retrying");
    // A key sent where it is ignored makes no retry safe that was not: the import answers its rows again.
    const ignored = [
      ["/v1/assets/import", "POST", "text/csv", "id,name,material,source_etag\na1,Chair,oak,e1\n"],
      ["/v1/links/github/octo", "PUT", "application/json", "{}"],
    ] as const;
    for (const [path, method, contentType, sent] of ignored) {
      const keyed = { ...headers, "idempotency-key": "retry-7", "content-type": contentType };
      const answer = await app.request(path, { method, headers: keyed, body: sent });
      const told = (await expectProblem(answer, 504, "database_outcome_unknown")).detail;
      expect(told, path).not.toContain("Idempotency-Key");
      expect(told, path).toContain("Check before retrying");
    }
  });

  it("answers a login the database refused with 500 misconfigured naming DATABASE_URL, and logs it", async () => {
    const logged: unknown[] = [];
    const refused = () => Promise.reject(new SettingsError("DATABASE_URL", "was refused by the database at login"));
    const app = appWith({ query: refused, transaction: refused }, { log: (...line) => void logged.push(line) });
    const response = await app.request("/v1/me/links", { headers: await bearer() });
    const body = await expectProblem(response, 500, "misconfigured");
    expect(body.setting).toBe("DATABASE_URL");
    expect(logged).toContainEqual(["error", "misconfigured", expect.objectContaining({ setting: "DATABASE_URL" })]);
  });

  it("hides internals of an unexpected error behind a 500 problem", async () => {
    const secret = "postgres://user:hunter2@db/prod";
    const app = appWith({ query: () => Promise.reject(new Error(`boom ${secret}`)) });
    const response = await app.request("/v1/me/links", { headers: await bearer() });
    const body = await expectProblem(response, 500, "internal_error");
    expect(JSON.stringify(body)).not.toContain("hunter2");
  });

  it("echoes a sane X-Request-Id and replaces an unsafe one", async () => {
    const app = appWith(down);
    expect(
      (await app.request("/healthz", { headers: { "x-request-id": "abc-123" } })).headers.get("x-request-id"),
    ).toBe("abc-123");
    const replaced = (await app.request("/healthz", { headers: { "x-request-id": "a b\tc" } })).headers.get(
      "x-request-id",
    );
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });
  // Deno hands over a request whose Host makes no URL as the client sent it: no runtime's parser
  // stopped it, so the app's first step does, before any route, token or CORS step reads its URL.
  it.each([
    ["GET", "http://exa mple/healthz", {}],
    ["GET", "http://x:99999/v1/me/links", {}],
    ["GET", "http://exa mple/v1/./me/links", {}],
    [
      "OPTIONS",
      "http://exa mple/v1/me/links",
      { origin: "https://app.example", "access-control-request-method": "GET" },
    ],
  ])("answers %s %s 400 malformed_request", async (method, url, headers) => {
    const request = new Request("http://api.test/placeholder", { method, headers });
    Object.defineProperty(request, "url", { value: url });
    const app = createApp({
      sql: {} as Sql,
      kv: createMemoryKv(),
      settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET, CORS_ORIGINS: "https://app.example" }),
      runtime: "deno",
      logger: silentLogger,
    });
    await expectProblem(await app.fetch(request), 400, "malformed_request");
  });
  // honojs/hono#5370: Hono's TrieRouter ran every middleware registered at `…/*` twice for a
  // path segment that is literally `*` (or a pattern's `:name`). `http://x*` is how js-compute
  // hands over a request for the target `*`.
  it.each([
    "/*",
    "http://x*",
    "/v1/*",
    "/v1/%2A",
    "/v1/links/github/*",
    "/v1/assets/:id",
    "/v1/links/:provider/:externalAccountId",
  ])("runs each step once for %s: one log line, the caller's quota counted as for any request", async (path) => {
    const logged: string[] = [];
    const counted: string[] = [];
    const app = createApp({
      sql: { query: async () => [], transaction: async () => [] } as unknown as Sql,
      kv: createMemoryKv(),
      settings,
      runtime: "node",
      logger: { log: (_level: string, event: string) => void logged.push(event) } as Logger,
      rateLimiter: {
        count: async (_policy, key) => (counted.push(key), { allowed: true, remaining: 99, resetSeconds: 60 }),
      },
    });
    await app.request("/v1/me/links", { headers: await bearer() });
    const perRequest = counted.splice(0).length;
    expect(perRequest).toBeGreaterThan(0);
    logged.length = 0;
    const request = new Request("http://api.test/placeholder", { headers: await bearer() });
    Object.defineProperty(request, "url", { value: path.startsWith("/") ? `http://api.test${path}` : path });
    await app.fetch(request);
    expect(logged.filter((event) => event === "request")).toHaveLength(1);
    expect(counted).toHaveLength(path.startsWith("/v1/") ? perRequest : 0);
  });
});
