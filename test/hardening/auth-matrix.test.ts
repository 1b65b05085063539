// Authentication and isolation over HTTP, on every /v1 route: each bad token is a 401 that
// writes nothing, and another tenant's assets and documents, or another user's links, are
// answered exactly as if they did not exist (404), leaving them untouched.
import { base64url, generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LINK_SOURCE_HEADER } from "../../core/links/routes.ts";
import { signToken, TEST_AUTH_SECRET, type TokenClaims } from "../../dev/support/tokens.ts";
import { linkRows } from "../links/support.ts";
import { type Harness, type RequestOptions, startHarness } from "../support/harness.ts";
import { expectProblem } from "../support/problems.ts";
import { routes } from "../support/routes.ts";
import { collectingLogger, type DatabaseSnapshot, snapshotter } from "./support.ts";

let harness: Harness;
let snapshot: () => Promise<DatabaseSnapshot>;
const logger = collectingLogger();

beforeAll(async () => {
  harness = await startHarness({ backend: "pglite", logger });
  snapshot = await snapshotter(harness.sql);
});

afterAll(async () => {
  await harness?.close();
});

const KEY = new TextEncoder().encode(TEST_AUTH_SECRET);
const now = () => Math.floor(Date.now() / 1000);
const ALICE = { sub: "alice", tid: "acme" };

const signed = (claims: Record<string, unknown>, alg = "HS256", key: Uint8Array | CryptoKey = KEY) =>
  new SignJWT(claims).setProtectedHeader({ alg, typ: "JWT" }).setIssuedAt().sign(key);

const tamper = async (change: Record<string, unknown>) => {
  const [header, , signature] = (await signed({ ...ALICE, exp: now() + 3600 })).split(".");
  return `${header}.${base64url.encode(JSON.stringify({ ...ALICE, exp: now() + 3600, ...change }))}.${signature}`;
};

/** Authorization header values that must all be refused, and the reason the challenge gives (none: no Bearer token). */
const badCredentials: Array<[string, () => Promise<string>, string | undefined]> = [
  ["no token at all", async () => "", undefined],
  ["a Basic scheme", async () => `Basic ${btoa("alice:password")}`, undefined],
  ["a bare token without scheme", async () => signToken(ALICE), undefined],
  ["garbage", async () => "Bearer not.a.jwt", "malformed"],
  ["the scheme twice", async () => `Bearer Bearer ${await signToken(ALICE)}`, "malformed"],
  ["a quoted token", async () => `Bearer "${await signToken(ALICE)}"`, "malformed"],
  [
    "a token expired beyond the 60 s leeway",
    async () => `Bearer ${await signed({ ...ALICE, exp: now() - 120 })}`,
    "expired",
  ],
  ["a token without exp", async () => `Bearer ${await signed(ALICE)}`, "missing exp"],
  [
    "a token not valid yet",
    async () => `Bearer ${await signed({ ...ALICE, nbf: now() + 600, exp: now() + 3600 })}`,
    "not yet valid",
  ],
  ["a non-numeric exp", async () => `Bearer ${await signed({ ...ALICE, exp: "tomorrow" })}`, "malformed"],
  [
    "another key",
    async () => `Bearer ${await signToken(ALICE, "a-different-secret-of-at-least-32-bytes")}`,
    "bad signature",
  ],
  [
    "alg none",
    async () => `Bearer ${new UnsecuredJWT(ALICE).setExpirationTime("1h").encode()}`,
    "algorithm not accepted",
  ],
  [
    "alg none with a signature",
    async () => `Bearer ${new UnsecuredJWT(ALICE).encode()}${(await signToken(ALICE)).split(".")[2]}`,
    "algorithm not accepted",
  ],
  ["HS512 with the right key", async () => `Bearer ${await signed(ALICE, "HS512")}`, "algorithm not accepted"],
  ["HS384 with the right key", async () => `Bearer ${await signed(ALICE, "HS384")}`, "algorithm not accepted"],
  [
    "RS256",
    async () => `Bearer ${await signed(ALICE, "RS256", (await generateKeyPair("RS256")).privateKey)}`,
    "algorithm not accepted",
  ],
  ["a tampered tenant", async () => `Bearer ${await tamper({ tid: "rival" })}`, "bad signature"],
  ["a tampered role", async () => `Bearer ${await tamper({ role: "admin" })}`, "bad signature"],
  ["a flipped signature", async () => `Bearer ${(await signToken(ALICE)).slice(0, -2)}AA`, "bad signature"],
  [
    "a missing sub",
    async () => `Bearer ${await signed({ tid: "acme", exp: now() + 3600 })}`,
    "invalid sub, tenant or role claim",
  ],
  [
    "an empty sub",
    async () => `Bearer ${await signed({ sub: "", tid: "acme", exp: now() + 3600 })}`,
    "invalid sub, tenant or role claim",
  ],
  [
    "a numeric sub",
    async () => `Bearer ${await signed({ sub: 42, tid: "acme", exp: now() + 3600 })}`,
    "invalid sub, tenant or role claim",
  ],
  [
    "an over-long sub",
    async () => `Bearer ${await signed({ sub: "a".repeat(129), tid: "acme", exp: now() + 3600 })}`,
    "invalid sub, tenant or role claim",
  ],
  [
    "a missing tid",
    async () => `Bearer ${await signed({ sub: "alice", exp: now() + 3600 })}`,
    "invalid sub, tenant or role claim",
  ],
  [
    "a tid that is a path",
    async () => `Bearer ${await signed({ sub: "alice", tid: "../rival", exp: now() + 3600 })}`,
    "invalid sub, tenant or role claim",
  ],
  [
    "the tid that holds the links made before tenants",
    async () => `Bearer ${await signed({ sub: "alice", tid: "legacy", role: "admin", exp: now() + 3600 })}`,
    "invalid sub, tenant or role claim",
  ],
  [
    "an unknown role",
    async () => `Bearer ${await signed({ ...ALICE, role: "root", exp: now() + 3600 })}`,
    "invalid sub, tenant or role claim",
  ],
];

/** Every route that wants a token (from the route table), and a path no route serves. */
const guarded: Array<RequestOptions & { path: string }> = [
  ...routes.filter((route) => route.access !== "public").map((route) => route.example),
  { path: "/v1/no-such-route" },
];

describe.each(badCredentials)("with %s", (_, credentials, reason) => {
  const challenge = reason
    ? `Bearer realm="api", error="invalid_token", error_description="${reason}"`
    : 'Bearer realm="api"';
  it(`every route that wants a token answers 401 unauthorized with the challenge ${challenge}, and nothing is written`, async () => {
    const authorization = await credentials();
    const before = await snapshot();
    for (const { path, ...options } of guarded) {
      const headers = { ...(options.headers as Record<string, string>), ...(authorization ? { authorization } : {}) };
      const response = await harness.request(path, { ...options, as: null, headers });
      await expectProblem(response, 401, "unauthorized");
      expect(response.headers.get("www-authenticate")).toBe(challenge);
      // The request's log line gives the operator the same reason, and nothing of the token.
      const line = logger.lines.findLast((entry) => entry.event === "request");
      expect(line?.fields.requestId).toBe(response.headers.get("x-request-id"));
      expect(line?.fields.tokenRefused).toBe(reason);
      if (authorization) expect(line?.text).not.toContain(authorization.slice(-16));
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("each route's access", () => {
  it.each(routes.filter((route) => route.access === "public").map((route) => [route.key, route] as const))(
    "%s answers without a token",
    async (_key, { example: { path, ...options } }) => {
      const response = await harness.request(path, { ...options, as: null });
      expect(response.status).toBeLessThan(400);
    },
  );

  it.each(routes.filter((route) => route.access === "admin").map((route) => [route.key, route] as const))(
    "%s refuses user and service tokens with 403, writing nothing, and serves an admin",
    async (_key, { example: { path, ...options } }) => {
      const before = await snapshot();
      for (const role of ["user", "service"] as const) {
        await expectProblem(
          await harness.request(path, { ...options, as: { sub: "ops", tid: "acme", role } }),
          403,
          "forbidden",
        );
      }
      expect(await snapshot()).toEqual(before);
      expect(
        (await harness.request(path, { ...options, as: { sub: "ops", tid: "acme", role: "admin" } })).status,
      ).toBeLessThan(400);
    },
  );
});

describe("another tenant's assets", () => {
  const owner: TokenClaims = { sub: "alice", tid: "acme" };
  const intruder: TokenClaims = { sub: "mallory", tid: "rival" };

  it("are answered 404 to every request, even one carrying their current ETag, and stay untouched", async () => {
    const created = await harness.request("/v1/assets/blueprint", {
      method: "PUT",
      as: owner,
      headers: { "if-none-match": "*" },
      body: { name: "Blueprint", material: "paper" },
    });
    expect(created.status).toBe(201);
    const etag = created.headers.get("etag")!;
    const before = await snapshot();
    const attempts: RequestOptions[] = [
      {},
      { headers: { "if-none-match": etag } },
      { headers: { "if-match": etag } },
      { method: "PATCH", headers: { "if-match": etag }, body: { name: "Stolen" } },
      { method: "PATCH", headers: { "if-match": "*" }, body: { name: "Stolen" } },
      { method: "PUT", headers: { "if-match": etag }, body: { name: "Stolen", material: "ink" } },
      { method: "DELETE", headers: { "if-match": etag } },
    ];
    for (const attempt of attempts) {
      await expectProblem(
        await harness.request("/v1/assets/blueprint", { ...attempt, as: intruder }),
        404,
        "not_found",
      );
    }
    const approve = await harness.request("/v1/assets/blueprint/approve", {
      method: "POST",
      as: intruder,
      headers: { "if-match": etag },
    });
    await expectProblem(approve, 404, "not_found");
    const csv = `id,name,material,source_etag\nblueprint,Stolen,ink,${etag.replaceAll('"', "")}\n`;
    const imported = await harness.request("/v1/assets/import", {
      method: "POST",
      as: intruder,
      headers: { "content-type": "text/csv" },
      body: csv,
    });
    expect(await imported.json()).toMatchObject({ results: [{ id: "blueprint", outcome: "not_found" }] });
    expect(await snapshot()).toEqual(before);

    // As if it did not exist: the intruder may create its own asset with that id, apart from the owner's.
    const own = await harness.request("/v1/assets/blueprint", {
      method: "PUT",
      as: intruder,
      headers: { "if-none-match": "*" },
      body: { name: "Mine", material: "tin" },
    });
    expect(own.status).toBe(201);
    const original = await harness.request("/v1/assets/blueprint", { as: owner });
    expect(original.headers.get("etag")).toBe(etag);
    expect(await original.json()).toMatchObject({ name: "Blueprint", material: "paper", status: "draft" });
  });
});

describe("another tenant's documents", () => {
  it("are not found, not listed, and an Idempotency-Key never replays across tenants", async () => {
    const request = {
      method: "POST",
      headers: { "idempotency-key": "order-1" },
      body: { contractId: "K-1", title: "T" },
    };
    const first = await harness.request("/v1/documents", { ...request, as: { sub: "a", tid: "docs-a" } });
    expect(first.status).toBe(201);
    const { docNumber, id } = (await first.json()) as { docNumber: number; id: string };
    const intruder = { sub: "m", tid: "docs-b" };
    await expectProblem(await harness.request(`/v1/documents/${docNumber}`, { as: intruder }), 404, "not_found");
    expect(await (await harness.request("/v1/documents", { as: intruder })).json()).toEqual({ items: [], next: null });

    const own = await harness.request("/v1/documents", { ...request, as: intruder });
    expect(own.status).toBe(201);
    expect(own.headers.get("idempotent-replayed")).toBeNull();
    expect(await own.json()).toMatchObject({ tenantId: "docs-b", docNumber: 1, id: expect.not.stringMatching(id) });
  });
});

describe("another user's links", () => {
  const target = { provider: "github", externalAccountId: "alice-octocat" };
  const path = "/v1/links/github/alice-octocat";
  const bob = { sub: "bob", tid: "acme" };

  it("are not found by a user (cached or not, whatever the spelling), not deletable, not listed", async () => {
    expect((await harness.request(path, { method: "PUT", as: ALICE })).status).toBe(201);
    expect((await harness.request(path, { as: ALICE })).headers.get(LINK_SOURCE_HEADER)).toBe("kv");
    for (const spelling of [path, `${path}?consistency=strong`, "/v1/links/GitHub/%20alice-octocat%20"]) {
      const response = await harness.request(spelling, { as: bob });
      await expectProblem(response, 404, "not_found");
      expect(response.headers.get(LINK_SOURCE_HEADER)).toBeNull();
    }
    await expectProblem(await harness.request(path, { method: "DELETE", as: bob }), 404, "not_found");
    expect(await linkRows(harness.sql, target)).toMatchObject([{ user_id: "alice" }]);
    expect(await (await harness.request("/v1/me/links", { as: bob })).json()).toEqual({ items: [], next: null });
    await expectProblem(
      await harness.request(path, { method: "PUT", as: bob }),
      409,
      "external_account_already_linked",
    );
  });

  it("are visible to service and admin tokens, while only admin may resync", async () => {
    for (const role of ["service", "admin"] as const) {
      const response = await harness.request(path, { as: { sub: "ops", tid: "acme", role } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ userId: "alice" });
    }
    for (const role of ["user", "service"] as const) {
      for (const route of routes.filter((entry) => entry.access === "admin")) {
        const response = await harness.request(route.example.path, {
          ...route.example,
          as: { sub: "ops", tid: "acme", role },
        });
        await expectProblem(response, 403, "forbidden");
      }
    }
  });
});
