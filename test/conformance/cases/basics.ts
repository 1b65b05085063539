// Operations, authentication and the request-handling conventions every route shares.
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { RuntimeName } from "../../../dev/launchers/index.ts";
import { TEST_AUTH_SECRET } from "../../../dev/support/tokens.ts";
import { type Call, expectProblem, expectStatus, freshTenant } from "../client.ts";

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

/** A token the server must refuse, for each reason API.md names. */
const refusedTokens: Record<string, () => Promise<string>> = {
  "a malformed bearer value": async () => "Bearer not.a.jwt",
  "another scheme": async () => `Basic ${Buffer.from("alice:secret").toString("base64")}`,
  "a token signed with another key": () => sign({ tid: "acme" }, "HS256", "another-secret-that-is-at-least-32-bytes!"),
  "an expired token": () => sign({ tid: "acme" }, "HS256", TEST_AUTH_SECRET, Math.floor(Date.now() / 1000) - 60),
  'alg "none"': async () =>
    `Bearer ${base64url({ alg: "none", typ: "JWT" })}.${base64url({ sub: "alice", tid: "acme", exp: inAnHour() })}.`,
  "alg HS512 with the right key": () => sign({ tid: "acme" }, "HS512", TEST_AUTH_SECRET.repeat(2)),
  "a token without tid": () => sign({}, "HS256", TEST_AUTH_SECRET),
  "a token with an invalid tid": () => sign({ tid: "has space" }, "HS256", TEST_AUTH_SECRET),
  "a token with an unknown role": () => sign({ tid: "acme", role: "root" }, "HS256", TEST_AUTH_SECRET),
  // RFC 8725: a token must expire, may not come from the future, and is typed for access if typed.
  "a token without exp": () => exactly({ sub: "alice", tid: "acme" }),
  "a token expired 90 s ago (beyond the 60 s leeway)": () => exactly({ ...alice, exp: now() - 90 }),
  "a token valid only from 2 minutes on (nbf)": () => exactly({ ...alice, exp: inAnHour(), nbf: now() + 120 }),
  "a token issued ten years ahead (iat)": () => exactly({ ...alice, exp: inAnHour(), iat: now() + 10 * 365 * 86_400 }),
  'a token typed for something else (typ "dpop+jwt")': () => exactly({ ...alice, exp: inAnHour() }, "dpop+jwt"),
  // AUTH_MAX_TOKEN_AGE_SECONDS (a day): a token is no older, and says when it was issued.
  "a token issued a day and two minutes ago (iat)": () => exactly({ ...alice, exp: inAnHour(), iat: now() - 86_520 }),
  "a token without iat": () => exactly({ ...alice, exp: inAnHour() }, undefined, false),
};

/** Tokens within RFC 8725's rules that a strict reading would refuse: the server accepts them. */
const acceptedTokens: Record<string, () => Promise<string>> = {
  "a token valid from 5 s on (an ordinary clock skew)": () => exactly({ ...alice, exp: inAnHour(), nbf: now() + 5 }),
  "a token expired 20 s ago (within the leeway)": () => exactly({ ...alice, exp: now() - 20 }),
  'a token typed "JWT"': () => exactly({ ...alice, exp: inAnHour() }, "JWT"),
  'an access token typed "at+jwt" (RFC 9068)': () => exactly({ ...alice, exp: inAnHour() }, "at+jwt"),
};

const now = () => Math.floor(Date.now() / 1000);
const alice = { sub: "alice", tid: "acme" };

/** An HS256 token with these claims (no exp added; iat now unless given or `issued` is false) and, when given, this typ. */
async function exactly(claims: Record<string, unknown>, typ?: string, issued = true) {
  const jwt = await new SignJWT(issued ? { iat: now(), ...claims } : claims)
    .setProtectedHeader({ alg: "HS256", ...(typ ? { typ } : {}) })
    .sign(new TextEncoder().encode(TEST_AUTH_SECRET));
  return `Bearer ${jwt}`;
}

async function sign(claims: Record<string, unknown>, alg: string, secret: string, exp = inAnHour()) {
  const jwt = await new SignJWT(claims)
    .setProtectedHeader({ alg })
    .setSubject("alice")
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
  return `Bearer ${jwt}`;
}

export function basicCases(call: Call, runtime: RuntimeName) {
  describe("operations", () => {
    it("GET /healthz answers 200 and names the runtime", async () => {
      const answer = await call("GET", "/healthz", { as: null });
      expectStatus(answer, 200);
      expect(answer.json).toEqual({ status: "ok", runtime });
    });

    it("GET /readyz answers 200 when Postgres answers, and names the runtime", async () => {
      const answer = await call("GET", "/readyz", { as: null });
      expectStatus(answer, 200);
      expect(answer.json).toEqual({ status: "ready", runtime });
    });

    it("an unknown route is a 404 problem", async () => {
      expectProblem(await call("GET", "/no/such/route"), 404, "not_found");
      expectProblem(await call("GET", "/v1/no-such-collection"), 404, "not_found");
    });
  });

  describe("authentication", () => {
    it("no Authorization header: 401 unauthorized", async () => {
      expectProblem(await call("GET", "/v1/me/links", { as: null }), 401, "unauthorized");
    });

    for (const [reason, token] of Object.entries(refusedTokens)) {
      it(`${reason}: 401 unauthorized`, async () => {
        expectProblem(await call("GET", "/v1/me/links", { as: await token() }), 401, "unauthorized");
      });
    }

    it.each([
      ["too old", () => exactly({ ...alice, exp: inAnHour(), iat: now() - 86_520 })],
      ["missing iat", () => exactly({ ...alice, exp: inAnHour() }, undefined, false)],
    ])("a token past the maximum age says why in WWW-Authenticate: %s", async (reason, token) => {
      const answer = await call("GET", "/v1/me/links", { as: await token() });
      expectProblem(answer, 401, "unauthorized");
      expect(answer.headers.get("www-authenticate")).toBe(
        `Bearer realm="api", error="invalid_token", error_description="${reason}"`,
      );
    });

    for (const [reason, token] of Object.entries(acceptedTokens)) {
      it(`${reason}: accepted`, async () => {
        expectStatus(await call("GET", "/v1/me/links", { as: await token() }), 200);
      });
    }

    it("every /v1 route asks for a token before anything else, a method it does not serve too (401 before 405)", async () => {
      const routes: [string, string][] = [
        ["PUT", "/v1/links/github/1"],
        ["GET", "/v1/links/github/1"],
        ["DELETE", "/v1/links/github/1"],
        ["POST", "/v1/admin/links/resync"],
        ["POST", "/v1/admin/links/sync"],
        ["POST", "/v1/assets"],
        ["GET", "/v1/assets/a"],
        ["PUT", "/v1/assets/a"],
        ["PATCH", "/v1/assets/a"],
        ["DELETE", "/v1/assets/a"],
        ["POST", "/v1/assets/a/approve"],
        ["POST", "/v1/assets/import"],
        ["POST", "/v1/documents"],
        ["GET", "/v1/documents"],
        ["GET", "/v1/documents/1"],
        ["DELETE", "/v1/me/links"],
        ["GET", "/v1/assets/import"],
        ["PATCH", "/v1/documents"],
      ];
      for (const [method, path] of routes) {
        const body = method === "GET" || method === "DELETE" ? undefined : "{}";
        expectProblem(await call(method, path, { as: null, body }), 401, "unauthorized");
      }
    });

    it("a valid HS256 token is accepted", async () => {
      expectStatus(await call("GET", "/v1/me/links", { as: { sub: "alice", tid: "acme" } }), 200);
    });
  });

  describe("request bodies", () => {
    it("a body over 64 KiB: 413 payload_too_large", async () => {
      const body = JSON.stringify({ contractId: "c", title: "x".repeat(70 * 1024) });
      const answer = await call("POST", "/v1/documents", { body, headers: { "content-type": "application/json" } });
      expectProblem(answer, 413, "payload_too_large");
    });

    it("a wrong content type: 415 unsupported_media_type", async () => {
      const answer = await call("POST", "/v1/documents", {
        body: '{"contractId":"c"}',
        headers: { "content-type": "text/plain" },
      });
      expectProblem(answer, 415, "unsupported_media_type");
    });

    it("malformed JSON: 400 malformed_request", async () => {
      const answer = await call("POST", "/v1/documents", {
        body: '{"contractId":',
        headers: { "content-type": "application/json" },
      });
      expectProblem(answer, 400, "malformed_request");
    });

    it("a well-formed body that fails validation: 422 validation_failed listing the fields", async () => {
      const problem = expectProblem(
        await call("POST", "/v1/documents", { body: { title: 7 } }),
        422,
        "validation_failed",
      );
      const fields = (problem.errors as { field: string }[]).map((error) => error.field);
      expect(fields).toEqual(expect.arrayContaining(["contractId", "title"]));
    });

    it("a refused body writes nothing: the tenant's first document is still number 1", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const headers = { "content-type": "application/json" };
      expectProblem(await call("POST", "/v1/documents", { as, body: "{", headers }), 400, "malformed_request");
      expectProblem(await call("POST", "/v1/documents", { as, body: { contractId: "" } }), 422, "validation_failed");
      const big = JSON.stringify({ contractId: "c", title: "x".repeat(70 * 1024) });
      expectProblem(await call("POST", "/v1/documents", { as, body: big, headers }), 413, "payload_too_large");
      const created = await call("POST", "/v1/documents", { as, body: { contractId: "c" } });
      expectStatus(created, 201);
      expect(created.json.docNumber).toBe(1);
    });
  });
}
