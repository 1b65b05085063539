import { Hono } from "hono/tiny";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { appWithoutDatabase } from "../dev/support/app-without-database.ts";
import { bearer, TEST_AUTH_SECRET } from "../dev/support/tokens.ts";
import { createMemoryKv } from "../edge/kv/memory.ts";
import { createApp } from "./app.ts";
import type { AppEnv, RouteDeps } from "./deps.ts";
import { notFound, type ProblemError, problemResponse } from "./http/problem.ts";
import { silentLogger } from "./log.ts";
import { mountCapabilities } from "./mount.ts";
import { type Capability, route } from "./route.ts";
import { parseSettings } from "./settings/settings.ts";

const refused = () => Promise.reject(new Error("the database is never reached here"));
const app = createApp({
  sql: { query: refused, transaction: refused },
  kv: createMemoryKv(),
  settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET }),
  runtime: "node",
  logger: silentLogger,
});

const probe = (access: "public" | "token", path: string): Capability => ({
  tag: "probe",
  schemas: {},
  routes: () => [
    route({
      method: "GET",
      path,
      access,
      summary: "A probe.",
      responses: {},
      problems: {},
      handler: (c) => c.text(""),
    }),
  ],
});

describe("the declared routes, as served", () => {
  it("answer a query the validator refuses with the contract's 422, before the handler", async () => {
    const response = await app.request("/v1/documents?limit=abc&after=-1", { headers: await bearer() });
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toEqual({
      type: "urn:problem:validation_failed",
      title: "Validation failed",
      status: 422,
      code: "validation_failed",
      detail: "The request failed validation.",
      errors: [
        { field: "after", message: "must be a decimal integer" },
        { field: "limit", message: "must be a decimal integer" },
      ],
    });
  });

  it("refuse a query parameter given twice by saying so, not by the type its repeats make", async () => {
    const response = await app.request("/v1/documents?limit=1&limit=2&after=3", { headers: await bearer() });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: unknown }).errors).toEqual([
      { field: "limit", message: "must be given once" },
    ]);
  });

  it("refuse a query parameter a route does not take, naming those it takes, before the handler", async () => {
    const headers = await bearer({ role: "admin" });
    const errorsOf = async (method: string, path: string) => {
      const response = await app.request(path, { method, headers });
      return [response.status, ((await response.json()) as { errors: unknown }).errors];
    };
    const refused = "is not a query parameter of this route";
    expect(await errorsOf("GET", "/v1/documents?cursor=20&cursor=40&limit=5")).toEqual([
      422,
      [{ field: "cursor", message: `${refused}, which takes \`after\` and \`limit\`` }],
    ]);
    expect(await errorsOf("GET", "/v1/links/github/octo?consistancy=strong")).toEqual([
      422,
      [{ field: "consistancy", message: `${refused}, which takes \`consistency\`` }],
    ]);
    expect(await errorsOf("POST", "/v1/admin/links/sync?force=1")).toEqual([
      422,
      [{ field: "force", message: `${refused}, which takes none` }],
    ]);
    expect(await errorsOf("GET", "/openapi.json?=json")).toEqual([
      422,
      [{ field: "", message: "is a query parameter without a name" }],
    ]);
    const head = await app.request("/v1/me/links?page=2", { method: "HEAD", headers });
    expect([head.status, await head.text()]).toEqual([422, ""]);
  });

  it("take an empty query as none, and let the probes ignore theirs (a prober's cache-buster)", async () => {
    for (const path of ["/openapi.json?", "/openapi.json?&", "/healthz?t=1700000000", "/healthz?&=x"]) {
      expect([path, (await app.request(path)).status]).toEqual([path, 200]);
    }
    // Its database is never reached here: not ready, whatever the query.
    expect((await app.request("/readyz?nocache")).status).toBe(503);
  });

  it("refuse a caller without the access a route declares, before its query is read", async () => {
    const response = await app.request("/v1/admin/links/resync?after=nonsense", {
      method: "POST",
      headers: await bearer({ role: "service" }),
    });
    expect([response.status, (await response.json()).code]).toEqual([403, "forbidden"]);
  });

  it("answer another method on a path with 405 and the methods its routes declare", async () => {
    const headers = await bearer();
    const cases = [
      ["PUT", "/v1/assets/import", "POST"],
      ["POST", "/v1/assets/chair", "GET, HEAD, PUT, PATCH, DELETE"],
      ["OPTIONS", "/healthz", "GET, HEAD"],
      ["DELETE", "/v1/documents/", "GET, HEAD, POST"],
    ];
    for (const [method, path, allow] of cases) {
      const response = await app.request(path!, { method, headers });
      expect([method, path, response.status, response.headers.get("allow")]).toEqual([method, path, 405, allow]);
    }
  });

  it("refuse a public route under /v1, a route behind the token check outside it, and an undeclared path parameter", () => {
    const mount = (capability: Capability) =>
      mountCapabilities(new Hono<AppEnv>(), [capability], { runtime: "node" } as RouteDeps);
    expect(() => mount(probe("public", "/v1/open"))).toThrow("GET /v1/open: a public route is served outside /v1");
    expect(() => mount(probe("token", "/closed"))).toThrow("GET /closed: a token route is served under /v1");
    expect(() => mount(probe("token", "/v1/closed"))).not.toThrow();
    expect(() => mount(probe("token", "/v1/closed/:id"))).toThrow("GET /v1/closed/:id: params must declare exactly id");
  });

  it("give the handler its query as the schema reads it: numbers as numbers, defaults filled", async () => {
    const seen: unknown[] = [];
    const paged: Capability = {
      tag: "probe",
      schemas: {},
      routes: () => [
        route({
          method: "GET",
          path: "/paged",
          access: "public",
          summary: "A probe.",
          query: v.object({ limit: v.optional(v.pipe(v.string(), v.transform(Number)), "20") }),
          responses: {},
          problems: {},
          handler: (c, { query }) => {
            seen.push(query.limit);
            return c.text("");
          },
        }),
      ],
    };
    const served = new Hono<AppEnv>();
    mountCapabilities(served, [paged], { runtime: "node" } as RouteDeps);
    await served.request("/paged?limit=7");
    await served.request("/paged");
    expect(seen).toEqual([7, 20]);
  });

  it("give the handler its path's parameters decoded and as their schemas read them, or refuse the path first", async () => {
    const seen: unknown[] = [];
    const named = (refusePath?: () => ProblemError): Capability => ({
      tag: "probe",
      schemas: {},
      routes: () => [
        route({
          method: "GET",
          path: "/items/:name/:number",
          access: "public",
          summary: "A probe.",
          params: {
            name: { description: "A name.", schema: v.pipe(v.string(), v.minLength(2), v.toLowerCase()) },
            number: { description: "A number.", schema: v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number)) },
          },
          ...(refusePath ? { refusePath } : {}),
          responses: {},
          problems: {},
          handler: (c, { params }) => {
            seen.push(params);
            return c.text("");
          },
        }),
      ],
    });
    const serve = (capability: Capability) => {
      const served = new Hono<AppEnv>();
      served.onError((error) => problemResponse(error as ProblemError));
      mountCapabilities(served, [capability], { runtime: "node" } as RouteDeps);
      return async (path: string) => {
        const response = await served.request(path);
        return [response.status, response.status === 200 ? "" : (await response.json()).code];
      };
    };
    const answer = serve(named());
    expect(await answer("/items/A%2FB/12/")).toEqual([200, ""]);
    expect(seen).toEqual([{ name: "a/b", number: 12 }]);
    expect(await answer("/items/ab/%E0%A4%A")).toEqual([400, "malformed_request"]);
    expect(await answer("/items/a/x")).toEqual([422, "validation_failed"]);
    const namesNothing = serve(named(() => notFound("No such item.")));
    expect(await namesNothing("/items/ab/%ZZ")).toEqual([404, "not_found"]);
    expect(await namesNothing("/items/a/1")).toEqual([404, "not_found"]);
    expect(seen).toHaveLength(1);
  });

  it("are the app's own: appWithoutDatabase serves the same routes", () => {
    expect(appWithoutDatabase().routes.length).toBe(app.routes.length);
  });
});
