// Logs: one structured line per request (method, route, status, duration, request id), the
// request id echoed or generated, and never a secret, token or connection string, not even
// when a request carries them or a database error would repeat them.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type App, createApp } from "../../core/app.ts";
import { consoleLogger } from "../../core/log.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { signToken, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";
import { type FaultyEndpoint, startFaultyEndpoint } from "../support/faulty-endpoint.ts";
import { buildRequest, type Harness, type RequestOptions, startHarness } from "../support/harness.ts";
import { routes } from "../support/routes.ts";
import { collectingLogger } from "./support.ts";

const DB_PASSWORD = "pw-Zq8-never-log-me";
const DB_CREDENTIALS = `app_user:${DB_PASSWORD}`;

let harness: Harness;
let faulty: FaultyEndpoint;
let app: App;
let connectionString: string;
const logger = collectingLogger();

beforeAll(async () => {
  harness = await startHarness({ backend: "pglite" });
  faulty = await startFaultyEndpoint(harness.stack.neonFetchEndpoint, harness.stack.databaseUrl);
  connectionString = faulty.databaseUrl(DB_CREDENTIALS);
  const sql = createNeonSql({ databaseUrl: connectionString, fetchEndpoint: faulty.url, timeoutMs: 5_000 });
  const settings = parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET });
  app = createApp({ sql, kv: createMemoryKv(), settings, runtime: "node", logger });
});

afterAll(async () => {
  await faulty?.close();
  await harness?.close();
});

const call = async (path: string, options: RequestOptions = {}) => app.fetch(await buildRequest(path, options));

/** Runs `send` and returns the answers with the lines logged meanwhile. */
async function logged(send: () => Promise<Response[]>) {
  const from = logger.lines.length;
  const responses = await send();
  return { responses, lines: logger.lines.slice(from) };
}

describe("request logs", () => {
  it("write exactly one structured line per request, whatever the outcome", async () => {
    await faulty.setFault("none");
    const { responses, lines } = await logged(async () => [
      await call("/healthz", { as: null }),
      await call("/v1/me/links"),
      await call("/v1/links/github/logged", { method: "PUT", body: { displayName: "L" } }),
      await call("/v1/assets", { method: "POST", body: { name: "" } }),
      await call("/v1/assets/x", { method: "POST" }),
      await call("/v1/documents", { as: null }),
      await call("/nowhere", { as: null }),
      await call("/v1/documents", {
        method: "POST",
        body: "{not json",
        headers: { "content-type": "application/json" },
      }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 201, 422, 405, 401, 404, 400]);
    const requestLines = lines.filter((line) => line.event === "request");
    expect(requestLines).toHaveLength(responses.length);
    requestLines.forEach((line, i) => {
      expect(JSON.parse(line.text)).toMatchObject({ level: "info", event: "request" });
      expect(line.fields).toEqual({
        requestId: responses[i]!.headers.get("x-request-id"),
        method: expect.stringMatching(/^(GET|PUT|POST)$/),
        route: expect.any(String),
        status: responses[i]!.status,
        durationMs: expect.any(Number),
      });
      expect(line.fields.durationMs).toBeGreaterThanOrEqual(0);
    });
    // The route is the pattern, so ids and names in the path stay out of the log; the route's also
    // when a middleware answered for it (the token check's 401 is /v1/documents', not /v1/*).
    expect(requestLines.map((line) => line.fields.route)).toEqual([
      "/healthz",
      "/v1/me/links",
      "/v1/links/:provider/:externalAccountId",
      "/v1/assets",
      "/v1/assets/:id",
      "/v1/documents",
      "/*",
      "/v1/documents",
    ]);
  });

  it.each(routes.map((route) => [route.key, route] as const))(
    "%s logs one line naming its pattern",
    async (_key, route) => {
      await faulty.setFault("none");
      const { path, ...options } = route.example;
      const { responses, lines } = await logged(async () => [
        await call(path, { ...options, as: { sub: "ops", tid: "acme", role: "admin" } }),
      ]);
      expect(responses[0]!.status).toBeLessThan(500);
      const requestLines = lines.filter((line) => line.event === "request");
      expect(requestLines.map((line) => [line.fields.method, line.fields.route])).toEqual([
        [route.method, route.pattern],
      ]);
    },
  );

  it("one line per request even when the database is down (plus the warning, tied by request id)", async () => {
    await faulty.setFault("down");
    const { responses, lines } = await logged(async () => [await call("/v1/me/links")]);
    await faulty.setFault("none");
    expect(responses[0]!.status).toBe(503);
    const requestId = responses[0]!.headers.get("x-request-id");
    expect(lines.filter((line) => line.event === "request")).toHaveLength(1);
    expect(lines.find((line) => line.event === "database_unavailable")?.fields.requestId).toBe(requestId);
    expect(lines.every((line) => line.fields.requestId === requestId)).toBe(true);
  });

  it("name a method no route implements _OTHER, keeping at most 32 characters of it", async () => {
    const { responses, lines } = await logged(async () => [
      await call("/v1/documents", { as: null, method: "PROPFIND" }),
      await call("/v1/documents", { as: null, method: "X".repeat(60_000) }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([501, 501]);
    const requestLines = lines.filter((line) => line.event === "request");
    expect(requestLines.map((line) => [line.fields.method, line.fields.methodOriginal])).toEqual([
      ["_OTHER", "PROPFIND"],
      ["_OTHER", "X".repeat(32)],
    ]);
  });

  it("echo a sane X-Request-Id and generate a fresh one otherwise", async () => {
    const offered = "req-42.abc:DEF_9";
    const echoed = await call("/healthz", { as: null, headers: { "x-request-id": offered } });
    expect(echoed.headers.get("x-request-id")).toBe(offered);
    const unsafe = ["", "has space", "x".repeat(129), "semi;colon", 'quote"d', "ünïcode"];
    const generated = new Set<string>();
    for (const value of [undefined, ...unsafe]) {
      const headers: Record<string, string> = value === undefined ? {} : { "x-request-id": value };
      const id = (await call("/healthz", { as: null, headers })).headers.get("x-request-id")!;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      generated.add(id);
    }
    expect(generated.size).toBe(unsafe.length + 1);
  });
});

describe("secrets stay out of the logs", () => {
  it("never logs the token, the signing key or the connection string a request or an error carries", async () => {
    const token = await signToken({ sub: "secret-bearer" });
    const forged = await signToken({ sub: "forger" }, "another-secret-that-is-also-32-bytes!!");
    const authorization = `Bearer ${token}`;
    const requests: Array<() => Promise<Response>> = [
      () => call(`/v1/me/links?access_token=${token}`, { headers: { authorization } }),
      () => call(`/v1/links/github/${token.slice(0, 100)}`, { method: "PUT", headers: { authorization } }),
      () => call("/v1/me/links", { headers: { authorization: `Bearer ${forged}` } }),
      () => call("/v1/me/links", { headers: { authorization: `Basic ${btoa(`user:${DB_PASSWORD}`)}` } }),
      () =>
        call("/v1/documents", {
          method: "POST",
          headers: { authorization, "neon-connection-string": connectionString },
          body: { contractId: connectionString, title: token.slice(0, 200) },
        }),
    ];
    // A misbehaving endpoint repeating the connection string back, as a proxy error page might.
    const echoes = [
      { answer: { status: 500, text: `cannot reach ${connectionString} (password ${DB_PASSWORD})` } },
      {
        answer: {
          status: 400,
          text: JSON.stringify({ message: `auth failed for ${connectionString}`, code: "28P01" }),
        },
      },
      { answer: { status: 400, text: JSON.stringify({ message: `bad input near ${DB_PASSWORD}`, code: "22P02" }) } },
    ] as const;
    const { lines } = await logged(async () => {
      const responses: Response[] = [];
      for (const fault of ["none", "down", ...echoes] as const) {
        await faulty.setFault(fault);
        for (const request of requests) responses.push(await request());
      }
      await faulty.setFault("none");
      return responses;
    });
    expect(lines.some((line) => line.event === "database_unavailable")).toBe(true);
    const secrets = [
      token,
      token.split(".")[2]!,
      forged,
      TEST_AUTH_SECRET,
      DB_PASSWORD,
      encodeURIComponent(DB_PASSWORD),
      connectionString,
    ];
    for (const line of lines) {
      for (const secret of secrets) expect(line.text, `${line.event} line`).not.toContain(secret);
    }
  });

  it("the console logger prints each entry as one JSON line", () => {
    const printed: string[] = [];
    const out = vi.spyOn(console, "log").mockImplementation((line: string) => void printed.push(line));
    const err = vi.spyOn(console, "error").mockImplementation((line: string) => void printed.push(line));
    try {
      consoleLogger.log("info", "request", { requestId: "r1", route: "/a\nb" });
      consoleLogger.log("error", "unhandled_error", { requestId: "r1", error: "line one\nline two" });
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(printed).toHaveLength(2);
    for (const line of printed) {
      expect(line).not.toContain("\n");
      expect(JSON.parse(line)).toMatchObject({ time: expect.any(String), level: expect.any(String), requestId: "r1" });
    }
  });
});
