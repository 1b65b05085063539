// Property-based: whatever a client sends to any route, with any of RFC 9110's methods, the API
// never answers 5xx; every answer is one its own /openapi.json documents (status, headers, media
// type, body schema: what a generic fuzzer such as schemathesis checks by default); every error
// is problem+json with a code of the contract; each request writes one log line; and a rejected
// request changes nothing, in any table (row counts and contents) or, for writes, in the KV
// cache. Runs on PGlite for breadth.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE, problemCodes } from "../../core/http/problem.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { type OpenApi, violations } from "../conformance/openapi-check.ts";
import { cacheKeys } from "../links/support.ts";
import { buildRequest, type Harness, startHarness } from "../support/harness.ts";
import { RFC_9110_METHODS, type Route, routes } from "../support/routes.ts";
import { elsewhere, filledIn, type HostileRequest, hostileRequestsFor } from "./arbitraries.ts";
import { EDGE_QUERY_VALUES, SEEDED_ASSET } from "./hostile-values.ts";
import { collectingLogger, type DatabaseSnapshot, snapshotter } from "./support.ts";

// Moderate: the whole file stays well under a minute on a busy two-core machine; PROPERTY_RUNS
// raises it for a longer search. Failures print fast-check's seed and path; rerun with them to
// replay the exact requests.
const RUNS_PER_ROUTE = Number(process.env.PROPERTY_RUNS ?? 25);

let harness: Harness;
let document: OpenApi;
let snapshot: () => Promise<DatabaseSnapshot>;
// The KV cache's clock stands still during each check: a run longer than a cached link's lifetime
// (5 min, a large PROPERTY_RUNS) must not take the entry's expiry for a change a request made.
let kvNow = Date.now();
const kv = createMemoryKv(() => kvNow);
const logger = collectingLogger();

beforeAll(async () => {
  harness = await startHarness({ backend: "pglite", kv, logger });
  snapshot = await snapshotter(harness.sql);
  document = (await (await harness.request("/openapi.json", { as: null })).json()) as OpenApi;
  expect((await harness.request("/v1/links/github/alice-account", { method: "PUT" })).status).toBe(201);
  expect((await harness.request("/v1/documents", { method: "POST", body: { contractId: "seed" } })).status).toBe(201);
});

afterAll(async () => {
  await harness?.close();
});

/** The seeded asset exists (random requests may delete it) and its current opaque-tag. */
async function seededEtag(): Promise<string> {
  await harness.sql.query(
    "INSERT INTO assets (tenant_id, id, name, material) VALUES ('acme', $1, 'Seed', 'oak') ON CONFLICT DO NOTHING",
    [SEEDED_ASSET],
  );
  const [existing] = await harness.sql.query<{ etag: string }>(
    "SELECT etag FROM assets WHERE tenant_id = 'acme' AND id = $1",
    [SEEDED_ASSET],
  );
  return existing!.etag;
}

async function toRequest(hostile: HostileRequest, opaque: string): Promise<Request> {
  return buildRequest(hostile.path, { method: hostile.method, as: null, ...(await filledIn(hostile, opaque)) });
}

async function kvContents(store: KvCache): Promise<Record<string, string | null>> {
  const keys = await cacheKeys(store);
  return Object.fromEntries(await Promise.all(keys.map(async (key) => [key, await store.get(key)] as const)));
}

/** Sends one hostile request and checks every invariant of the contract on its answer. */
async function sendAndCheck(hostile: HostileRequest): Promise<void> {
  kvNow = Date.now();
  const opaque = await seededEtag();
  const before = await snapshot();
  const cacheBefore = await kvContents(kv);
  const request = await toRequest(hostile, opaque);
  logger.lines.length = 0;
  const response = await harness.app.fetch(request);
  const text = await response.text();
  const context = `${hostile.method} ${hostile.path} → ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, context).toBeLessThan(500);
  expect(
    logger.lines.filter((line) => line.event === "request"),
    context,
  ).toHaveLength(1);
  const exchange = {
    method: hostile.method,
    url: request.url,
    status: response.status,
    headers: response.headers,
    text,
  };
  expect(violations(document, exchange), context).toEqual([]);
  if (response.status < 400) return;

  expect(response.headers.get("content-type"), context).toBe(PROBLEM_CONTENT_TYPE);
  if (hostile.method !== "HEAD") {
    const problem = JSON.parse(text) as { status: unknown; code: unknown; type: unknown; title: unknown };
    expect(problemCodes, context).toContain(problem.code);
    expect(problem.status, context).toBe(response.status);
    expect(typeof problem.type === "string" && typeof problem.title === "string", context).toBe(true);
  }
  expect(await snapshot(), `${context}: a rejected request changed the database`).toEqual(before);
  expect(await kvContents(kv), `${context}: a rejected request changed the KV cache`).toEqual(cacheBefore);
}

/** The query parameters the served document names for `route`'s operation (cursors included). */
function queryNamesOf(route: Route): string[] {
  const template = route.pattern.replace(/:([^/]+)/g, "{$1}");
  const operation = document.paths[template]?.[route.method.toLowerCase()] as
    | { parameters?: { name: string; in: string }[] }
    | undefined;
  return (operation?.parameters ?? []).filter((parameter) => parameter.in === "query").map(({ name }) => name);
}

// Every route of the table (so a new route is fuzzed the day it lands), and paths no route serves.
// Made once the served document is read: it names each operation's query parameters.
const targets: ReadonlyArray<readonly [string, () => fc.Arbitrary<HostileRequest>]> = [
  ...routes.map((route) => [route.key, () => hostileRequestsFor(route, { queryNames: queryNamesOf(route) })] as const),
  ["anywhere else", () => elsewhere] as const,
];

describe.each(targets)("hostile requests to %s", (_, requests) => {
  it("never answer 5xx, always answer errors as problem+json with a known code, log one line each, and write nothing when rejected", async () => {
    await fc.assert(fc.asyncProperty(requests(), sendAndCheck), { numRuns: RUNS_PER_ROUTE });
  }, 180_000);
});

describe("every query parameter the document names, at the edges of every cursor and number", () => {
  it("is answered as the document says, never 5xx, and a refused one writes nothing", async () => {
    const admin = { claims: { sub: "ops", tid: "acme", role: "admin" as const } };
    for (const route of routes) {
      for (const name of queryNamesOf(route)) {
        const { pathname } = new URL(route.example.path, "http://localhost");
        for (const value of EDGE_QUERY_VALUES) {
          const path = `${pathname}?${name}=${encodeURIComponent(value)}`;
          await sendAndCheck({ method: route.method, path, headers: {}, auth: admin, padding: ["", ""] });
        }
      }
    }
  }, 180_000);
});

/** A read's status and problem code: what must not change with a trailing slash. */
async function readAnswer(path: string, hostile: HostileRequest): Promise<string> {
  const response = await harness.app.fetch(await toRequest({ ...hostile, path }, await seededEtag()));
  const text = await response.text();
  const code = response.headers.get("content-type") === PROBLEM_CONTENT_TYPE && text ? JSON.parse(text).code : "";
  return `${response.status} ${code}`;
}

const reads = routes.filter((route) => route.method === "GET");

describe.each(reads.map((route) => [route.key, route] as const))("%s, with one trailing slash", (_, route) => {
  it("is answered as the same path without it (docs/API.md)", async () => {
    const requests = hostileRequestsFor(route, { queryNames: queryNamesOf(route), respell: false })
      .filter((hostile) => hostile.method === "GET" || hostile.method === "HEAD")
      .filter((hostile) => !new URL(hostile.path, "http://localhost").pathname.endsWith("/"));
    await fc.assert(
      fc.asyncProperty(requests, async (hostile) => {
        const [pathname, query = ""] = hostile.path.split(/(?=\?)/);
        const plain = await readAnswer(hostile.path, hostile);
        const slashed = await readAnswer(`${pathname}/${query}`, hostile);
        expect(slashed, `${hostile.method} ${pathname}/${query}`).toBe(plain);
      }),
      { numRuns: RUNS_PER_ROUTE },
    );
  }, 180_000);
});

describe("every method RFC 9110 defines, on every path of the document", () => {
  it("is answered as the document says (405 with the path's Allow where it serves no such operation), never 5xx", async () => {
    for (const template of Object.keys(document.paths)) {
      const path = template.replace(/\{[^}]+\}/g, "1");
      for (const method of RFC_9110_METHODS) {
        const request = await buildRequest(path, { method });
        const response = await harness.app.fetch(request);
        const text = await response.text();
        const exchange = { method, url: request.url, status: response.status, headers: response.headers, text };
        expect(response.status, `${method} ${path}`).toBeLessThan(500);
        expect(violations(document, exchange), `${method} ${path} → ${response.status} ${text}`).toEqual([]);
      }
    }
  });
});
