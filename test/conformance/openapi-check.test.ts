// The checker the conformance suite runs on every answer must catch what it is there to catch.

import { describe, expect, it } from "vitest";
import { appWithoutDatabase } from "../../dev/support/app-without-database.ts";
import { type Exchange, type OpenApi, violations } from "./openapi-check.ts";

const app = appWithoutDatabase();
const document = (await (await app.request("/openapi.json")).json()) as OpenApi;

// Every answer under /v1 carries it; elsewhere it is no field the document names, and checks nothing.
const NO_STORE = { "cache-control": "no-store" };
const problem = (status: number, code: string, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ "content-type": "application/problem+json", "x-request-id": "r", ...NO_STORE, ...headers }),
  text: JSON.stringify({ type: `urn:problem:${code}`, title: "t", status, code }),
});
const asset = { id: "a", name: "Chair", material: "oak", status: "draft", updatedAt: "2026-01-01T00:00:00.000Z" };
const ok = (body: object, headers: Record<string, string> = {}) => ({
  status: 200,
  headers: new Headers({ "content-type": "application/json", "x-request-id": "r", ...NO_STORE, ...headers }),
  text: JSON.stringify(body),
});
const exchange = (method: string, path: string, answer: Omit<Exchange, "method" | "url">): Exchange => ({
  method,
  url: `http://x${path}`,
  ...answer,
});

describe("checking answers against the document", () => {
  it("accepts what the contract says", () => {
    expect(violations(document, exchange("GET", "/v1/assets/a", ok(asset, { etag: '"abc"' })))).toEqual([]);
    expect(violations(document, exchange("PATCH", "/v1/assets/a", problem(409, "asset_locked")))).toEqual([]);
    expect(violations(document, exchange("GET", "/nowhere", problem(404, "not_found")))).toEqual([]);
    expect(
      violations(document, exchange("POST", "/healthz", problem(405, "method_not_allowed", { allow: "GET, HEAD" }))),
    ).toEqual([]);
  });

  it("catches a status, a problem code, a header or a field the document does not name", () => {
    expect(violations(document, exchange("GET", "/v1/assets/a", problem(409, "asset_locked")))).not.toEqual([]);
    expect(
      violations(document, exchange("PATCH", "/v1/assets/a", problem(409, "provider_already_linked"))),
    ).not.toEqual([]);
    expect(violations(document, exchange("GET", "/v1/assets/a", ok(asset)))).toEqual(["header etag is required"]);
    const cached = ok(asset, { etag: '"abc"', "cache-control": "private, max-age=60" });
    expect(violations(document, exchange("GET", "/v1/assets/a", cached))).not.toEqual([]);
    cached.headers.delete("cache-control");
    expect(violations(document, exchange("GET", "/v1/assets/a", cached))).toEqual(["header cache-control is required"]);
    expect(
      violations(document, exchange("GET", "/v1/assets/a", ok({ ...asset, etag: "x" }, { etag: '"abc"' }))),
    ).toEqual(["body: etag is not allowed"]);
    expect(
      violations(document, exchange("GET", "/v1/assets/a", ok({ ...asset, name: 7 }, { etag: '"a"' }))),
    ).not.toEqual([]);
  });

  it("catches a 405 whose Allow differs from the documented methods", () => {
    const answer = problem(405, "method_not_allowed", { allow: "GET, HEAD, POST" });
    expect(violations(document, exchange("DELETE", "/healthz", answer))).not.toEqual([]);
  });
});
