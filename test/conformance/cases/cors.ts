// CORS (CORS_ORIGINS): a listed origin's preflight is answered before the token check, its answers
// expose the contract's headers; an origin not listed gets no CORS header; unset, nothing changes.
import { describe, expect, it } from "vitest";
import { type Answer, type Call, expectProblem, expectStatus, httpClient, unique } from "../client.ts";

/** The origins every conformance server lists (two: the setting is a comma-separated list). */
export const CONFORMANCE_CORS_ORIGINS = ["http://app.conformance.test", "http://admin.conformance.test:8443"];
export const CONFORMANCE_CORS_SETTINGS = { CORS_ORIGINS: CONFORMANCE_CORS_ORIGINS.join(", ") };
const [APP, ADMIN] = CONFORMANCE_CORS_ORIGINS as [string, string];
const UNLISTED = "http://evil.conformance.test";

const REQUEST_HEADERS = [
  "authorization",
  "content-type",
  "if-match",
  "if-none-match",
  "idempotency-key",
  "x-request-id",
  "traceparent",
  "tracestate",
];
const EXPOSED_HEADERS = [
  "etag",
  "location",
  "retry-after",
  "idempotent-replayed",
  "x-link-source",
  "x-request-id",
  "server-timing",
  "ratelimit",
  "ratelimit-policy",
];

const list = (value: string | null) =>
  (value ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
const corsHeaderNames = (answer: Answer) =>
  [...answer.headers.keys()].filter((name) => name.startsWith("access-control-"));

function expectVariesOnOrigin(answer: Answer) {
  expect(list(answer.headers.get("vary")), "Vary").toContain("origin");
}

function expectListedOrigin(answer: Answer, origin: string) {
  expect(answer.headers.get("access-control-allow-origin")).toBe(origin);
  expect(list(answer.headers.get("access-control-expose-headers")).sort()).toEqual([...EXPOSED_HEADERS].sort());
  expect(answer.headers.get("access-control-allow-credentials")).toBeNull();
  expectVariesOnOrigin(answer);
}

/** `baseUrl`: preflights go through a client of their own, since the document describes no OPTIONS. */
export function corsCases(call: Call, baseUrl: () => string) {
  const preflight = (path: string, origin: string, method: string, headers = "authorization") =>
    httpClient(baseUrl)("OPTIONS", path, {
      as: null,
      headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers },
    });
  /** The methods a path serves, as its 405 names them. */
  const allowOf = async (path: string) => list((await call("PATCH", path, {})).headers.get("allow"));

  describe("CORS (CORS_ORIGINS)", () => {
    it("answers a listed origin's preflight before the token check: 204, the path's methods, the contract's headers", async () => {
      const path = `/v1/links/github/${unique("cors")}`;
      const answer = await preflight(path, APP, "PUT", "authorization,content-type,if-match,idempotency-key");
      expectStatus(answer, 204);
      expect(answer.text).toBe("");
      expectListedOrigin(answer, APP);
      expect(list(answer.headers.get("access-control-allow-methods")).sort()).toEqual((await allowOf(path)).sort());
      expect(list(answer.headers.get("access-control-allow-headers")).sort()).toEqual([...REQUEST_HEADERS].sort());
      expect(answer.headers.get("access-control-max-age")).toBe("600");
    });

    it("answers each listed origin, port included, and the methods of each path, one trailing slash the same path", async () => {
      // /v1/assets/import serves POST only, though the asset operations' pattern names it too.
      for (const path of ["/v1/documents", "/v1/documents/", "/v1/assets/import"]) {
        const answer = await preflight(path, ADMIN, "POST");
        expectStatus(answer, 204);
        expect(answer.headers.get("access-control-allow-origin")).toBe(ADMIN);
        expect(list(answer.headers.get("access-control-allow-methods")).sort(), path).toEqual(
          (await allowOf(path)).sort(),
        );
      }
    });

    it("marks a listed origin's answers, success and problem alike, and keeps the problem body", async () => {
      const path = `/v1/links/github/${unique("cors")}`;
      const linked = await call("PUT", path, { headers: { origin: APP } });
      expectStatus(linked, 201);
      expectListedOrigin(linked, APP);
      const refused = await call("GET", path, { as: null, headers: { origin: APP } });
      expectProblem(refused, 401, "unauthorized");
      expectListedOrigin(refused, APP);
    });

    it("marks a listed origin's OPTIONS that goes the way of any request: no preflight (405), or of a path that serves nothing", async () => {
      const plain = await call("OPTIONS", "/v1/me/links", { headers: { origin: APP } });
      expectProblem(plain, 405, "method_not_allowed");
      expectListedOrigin(plain, APP);
      const unserved = await preflight("/v1/no-such-collection", APP, "GET");
      expectProblem(unserved, 401, "unauthorized");
      expectListedOrigin(unserved, APP);
      const nowhere = await preflight("/no/such/route", ADMIN, "GET");
      expectProblem(nowhere, 404, "not_found");
      expectListedOrigin(nowhere, ADMIN);
    });

    it("gives an origin not listed no CORS header: its preflight meets the token check", async () => {
      const refused = await preflight(`/v1/links/github/${unique("cors")}`, UNLISTED, "PUT");
      expectProblem(refused, 401, "unauthorized");
      expect(corsHeaderNames(refused)).toEqual([]);
      expectVariesOnOrigin(refused);
      const health = await call("GET", "/healthz", { as: null, headers: { origin: UNLISTED } });
      expectStatus(health, 200);
      expect(corsHeaderNames(health)).toEqual([]);
      expectVariesOnOrigin(health);
    });

    it("varies on Origin even for a request without one; an origin matches exactly", async () => {
      expectVariesOnOrigin(await call("GET", "/healthz", { as: null }));
      for (const origin of [APP.toUpperCase(), `${APP}/`]) {
        const answer = await call("GET", "/healthz", { as: null, headers: { origin } });
        expect(corsHeaderNames(answer), origin).toEqual([]);
      }
    });
  });
}

/** A server without CORS_ORIGINS: no CORS header, no Vary, for any origin. */
export function corsOffCases(call: Call) {
  it("sends no CORS header and no Vary: Origin unless CORS_ORIGINS is set", async () => {
    const answer = await call("GET", "/healthz", { as: null, headers: { origin: APP } });
    expect(corsHeaderNames(answer)).toEqual([]);
    expect(list(answer.headers.get("vary"))).not.toContain("origin");
  });
}
