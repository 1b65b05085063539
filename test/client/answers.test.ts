// What a call of the typed client resolves to, or throws, for every kind of answer: the API's
// problems as `error` (typed per status, with the headers the contract gives them), and everything
// that is not an answer of the API (a gateway's HTML 502, an empty 503, a success that is not
// JSON, no answer at all, an aborted or timed-out request) thrown, never passed off as a problem.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, UnexpectedResponseError } from "edge-race-free/client";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import type { App } from "../../core/app.ts";
import { DatabaseOutcomeUnknownError, DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { appOverFailingDatabase } from "../../dev/support/app-over-failing-database.ts";
import { signToken } from "../../dev/support/tokens.ts";

const clientOf = async (app: App) =>
  createClient({ baseUrl: "http://api.test", token: await signToken(), fetch: async (r) => app.fetch(r) });

/** A gateway in front of the API answering, whatever is asked, with `answer`. */
const behindGateway = (answer: () => Response) =>
  createClient({ baseUrl: "http://api.test", token: "t", fetch: async () => answer() });

const down = new DatabaseUnavailableError("connection refused");

describe("the API's problems, as `error`", () => {
  it("types the problem per status: its status narrows its code", async () => {
    const api = await clientOf(appOverFailingDatabase(down));
    const { data, error, response } = await api.PATCH("/v1/assets/{id}", {
      params: { path: { id: "chair-42" }, header: { "if-match": "not an ETag" } },
      body: { material: "steel" },
    });
    expect(data).toBeUndefined();
    expect([response.status, error?.status, error?.code]).toEqual([400, 400, "malformed_request"]);
    if (error?.status === 412) expectTypeOf(error.code).toEqualTypeOf<"precondition_failed">();
    if (error?.code === "asset_locked") expectTypeOf(error.status).toEqualTypeOf<409>();
  });

  it("names each failing field of a 422", async () => {
    const api = await clientOf(appOverFailingDatabase(down));
    const { error } = await api.GET("/v1/documents", { params: { query: { limit: 1000 } } });
    expect(error).toMatchObject({ status: 422, code: "validation_failed", errors: [{ field: "limit" }] });
  });

  it("gives a 401 its Bearer challenge", async () => {
    const api = createClient({ baseUrl: "http://api.test", fetch: async (r) => appOverFailingDatabase(down).fetch(r) });
    const { error, response } = await api.GET("/v1/me/links");
    expect([error?.code, response.headers.get("www-authenticate")]).toEqual(["unauthorized", 'Bearer realm="api"']);
  });

  it("gives a 429 its Retry-After and the quota it spent", async () => {
    const api = await clientOf(appOverFailingDatabase(down, { RATE_LIMIT_CALLER_READS: "1" }));
    await api.GET("/v1/me/links");
    const { error, response } = await api.GET("/v1/me/links");
    expect(error).toMatchObject({ status: 429, code: "rate_limited", "violated-policies": ["caller-reads"] });
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(response.headers.get("ratelimit")).toContain('"caller-reads";r=0');
  });

  it("gives a 503 (nothing written) its Retry-After, and a 504 (outcome unknown) none", async () => {
    const unavailable = await (await clientOf(appOverFailingDatabase(down))).GET("/v1/me/links");
    expect(unavailable.error?.code).toBe("database_unavailable");
    expect(Number(unavailable.response.headers.get("retry-after"))).toBeGreaterThan(0);

    const unknown = await (
      await clientOf(appOverFailingDatabase(new DatabaseOutcomeUnknownError("connection lost")))
    ).POST("/v1/documents", { params: { header: { "idempotency-key": "order-7" } }, body: { contractId: "C-7" } });
    expect([unknown.response.status, unknown.error?.code]).toEqual([504, "database_outcome_unknown"]);
    expect(unknown.response.headers.get("retry-after")).toBeNull();
  });
});

describe("what is not an answer of the API, thrown", () => {
  const html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
  const cases: [string, () => Response, number][] = [
    [
      "a gateway's HTML 502",
      () => new Response(html, { status: 502, statusText: "Bad Gateway", headers: { "content-type": "text/html" } }),
      502,
    ],
    [
      "an empty 503 with Retry-After",
      () => new Response(null, { status: 503, headers: { "retry-after": "7", "content-length": "0" } }),
      503,
    ],
    [
      "an error in JSON that is no problem",
      () => Response.json({ message: "Internal server error" }, { status: 500 }),
      500,
    ],
    [
      "problem+json that is not the API's",
      () =>
        new Response('{"title":"Forbidden"}', { status: 403, headers: { "content-type": "application/problem+json" } }),
      403,
    ],
    ["a success that is not JSON", () => new Response(html, { headers: { "content-type": "text/html" } }), 200],
  ];

  it.each(cases)("%s", async (_, answer, status) => {
    const thrown = await behindGateway(answer)
      .GET("/v1/documents", { params: { query: { limit: 10 } } })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(UnexpectedResponseError);
    const { message, response, body } = thrown as UnexpectedResponseError;
    expect([(thrown as UnexpectedResponseError).status, response.status]).toEqual([status, status]);
    expect(message).toMatch(new RegExp(`^GET /v1/documents answered ${status}\\b.*: not an answer of the API$`));
    expect(body).toBe(await answer().text());
  });

  it("keeps the gateway's headers: its Retry-After is the caller's to honour", async () => {
    const thrown = await behindGateway(() => new Response(null, { status: 503, headers: { "retry-after": "7" } }))
      .POST("/v1/documents", { body: { contractId: "C-7" } })
      .catch((error: UnexpectedResponseError) => error);
    expect(thrown).toBeInstanceOf(UnexpectedResponseError);
    expect(thrown.response.headers.get("retry-after")).toBe("7");
  });

  it("lets through a 204 without a body and a 304, as openapi-fetch answers them", async () => {
    const gone = await behindGateway(() => new Response(null, { status: 204 })).DELETE("/v1/assets/{id}", {
      params: { path: { id: "chair-42" }, header: { "if-match": '"a"' } },
    });
    expect([gone.response.status, gone.data, gone.error]).toEqual([204, undefined, undefined]);
    const unchanged = await behindGateway(() => new Response(null, { status: 304 })).GET("/v1/assets/{id}", {
      params: { path: { id: "chair-42" }, header: { "if-none-match": '"a"' } },
    });
    expect([unchanged.response.status, unchanged.data, unchanged.error]).toEqual([304, undefined, ""]);
  });

  it("lets a caller's parseAs read a success as it asks", async () => {
    const text = await behindGateway(() => new Response("plain")).GET("/healthz", { parseAs: "text" });
    expect(text.data).toBe("plain");
  });
});

describe("no answer at all, thrown as fetch throws it", () => {
  let silent: Server;
  let silentUrl: string;

  beforeAll(async () => {
    // Accepts requests and never answers them.
    silent = createServer(() => {});
    await new Promise<void>((listening) => silent.listen(0, "127.0.0.1", listening));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((closed) => silent.close(closed));
  });

  it("a refused connection: TypeError", async () => {
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, "127.0.0.1", listening));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    const thrown = await createClient({ baseUrl: `http://127.0.0.1:${port}` })
      .GET("/healthz")
      .catch((error: Error) => error);
    expect(thrown).toBeInstanceOf(TypeError);
  });

  it("an aborted request: AbortError", async () => {
    const controller = new AbortController();
    const call = createClient({ baseUrl: silentUrl }).GET("/healthz", { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
  });

  it("a timeout: TimeoutError", async () => {
    const call = createClient({ baseUrl: silentUrl }).GET("/healthz", { signal: AbortSignal.timeout(50) });
    await expect(call).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

describe("the request", () => {
  it("asks a token function for each request, and sends what it gives", async () => {
    const sent: (string | null)[] = [];
    let calls = 0;
    const api = createClient({
      baseUrl: "http://api.test",
      token: async () => `token-${++calls}`,
      fetch: async (request) => (sent.push(request.headers.get("authorization")), Response.json({ status: "ok" })),
    });
    await api.GET("/healthz");
    await api.GET("/healthz");
    expect(sent).toEqual(["Bearer token-1", "Bearer token-2"]);
  });

  it.each(["", ".", ".."])(
    "refuses a path parameter %j, which no URL can name, before sending anything",
    async (id) => {
      let sent = 0;
      const api = createClient({ baseUrl: "http://api.test", fetch: async () => (sent++, new Response(null)) });
      const call = api.DELETE("/v1/assets/{id}", { params: { path: { id }, header: { "if-match": "*" } } });
      await expect(call).rejects.toThrow(
        new TypeError(`The path parameter id cannot be ${JSON.stringify(id)}: no URL can name it.`),
      );
      expect(sent).toBe(0);
    },
  );

  it("percent-encodes every other path parameter into one segment", async () => {
    const urls: string[] = [];
    const api = createClient({
      baseUrl: "http://api.test",
      fetch: async (request) => (urls.push(request.url), new Response(null, { status: 204 })),
    });
    for (const externalAccountId of ["a/b", "50%", "x#y", "q?x", " . ", "a..b"]) {
      await api.DELETE("/v1/links/{provider}/{externalAccountId}", {
        params: { path: { provider: "github", externalAccountId } },
      });
    }
    expect(urls.map((url) => new URL(url).pathname.split("/").slice(4))).toEqual(
      ["a%2Fb", "50%25", "x%23y", "q%3Fx", "%20.%20", "a..b"].map((segment) => [segment]),
    );
  });
});
