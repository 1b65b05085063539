import { base64url, SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { ProblemError } from "../http/problem.ts";
import { createAuthenticator } from "./auth.ts";
import { parseAuthSettings } from "./settings.ts";

const SECRET = "unit-test-secret-with-at-least-32-bytes";
const key = new TextEncoder().encode(SECRET);
const authenticate = createAuthenticator(parseAuthSettings({ AUTH_SECRET: SECRET }));

const sign = (claims: Record<string, unknown>, { alg = "HS256", exp = "1h" as string | number, secret = key } = {}) =>
  new SignJWT(claims).setProtectedHeader({ alg }).setIssuedAt().setExpirationTime(exp).sign(secret);

async function rejection(header: string | undefined): Promise<ProblemError> {
  const error = await authenticate(header).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProblemError);
  return error as ProblemError;
}

describe("authenticate", () => {
  it("accepts a valid HS256 token and defaults the role to user", async () => {
    const token = await sign({ sub: "alice", tid: "acme" });
    expect(await authenticate(`Bearer ${token}`)).toEqual({ userId: "alice", tenantId: "acme", role: "user" });
  });

  it("answers a remembered token with the principal it checked, and a token with bad claims with 401 every time", async () => {
    const token = await sign({ sub: "alice", tid: "acme", role: "service" });
    const first = await authenticate(`Bearer ${token}`);
    expect(await authenticate(`Bearer ${token}`)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true); // shared by every request with that token
    const bad = await sign({ sub: "alice", tid: "not a tenant" });
    for (let i = 0; i < 2; i++) expect((await rejection(`Bearer ${bad}`)).code).toBe("unauthorized");
  });

  it("keeps a service or admin role", async () => {
    const token = await sign({ sub: "ops", tid: "acme", role: "admin" });
    expect((await authenticate(`bearer ${token}`)).role).toBe("admin");
  });

  it.each([
    ["no header", undefined],
    ["an empty header", ""],
    ["a Basic scheme", "Basic YWxpY2U6c2VjcmV0"],
    ["a bearer without token", "Bearer "],
    ["garbage", "Bearer not.a.jwt"],
  ])("answers 401 unauthorized for %s", async (_label, header) => {
    const problem = await rejection(header);
    expect(problem.status).toBe(401);
    expect(problem.code).toBe("unauthorized");
  });

  it.each([
    ["no header", undefined],
    ["a Basic scheme", "Basic YWxpY2U6c2VjcmV0"],
    ["a bearer without token", "Bearer "],
  ])("asks for a token, with the bare challenge, when %s is sent", async (_label, header) => {
    const problem = await rejection(header);
    expect(problem.detail).toBe("A Bearer token is required.");
    expect(problem.headers["www-authenticate"]).toBe('Bearer realm="api"');
  });

  // The caller did send a token: telling it to send one would send it looking for a missing header.
  it.each([
    ["a quoted token", 'Bearer "eyJhbGciOiJIUzI1NiJ9.e30.sig"'],
    ["the scheme twice", "Bearer Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"],
    ["a token holding a space", "Bearer eyJhbGciOiJIUzI1NiJ9. e30.sig"],
  ])("refuses %s as malformed rather than asking for a token", async (_label, header) => {
    const problem = await rejection(header);
    expect(problem.detail).toBe("The token is refused: malformed.");
    expect(problem.headers["www-authenticate"]).toBe(
      'Bearer realm="api", error="invalid_token", error_description="malformed"',
    );
  });

  it("refuses an expired token", async () => {
    const token = await sign({ sub: "alice", tid: "acme" }, { exp: Math.floor(Date.now() / 1000) - 60 });
    expect((await rejection(`Bearer ${token}`)).code).toBe("unauthorized");
  });

  describe("RFC 8725's checks", () => {
    const now = () => Math.floor(Date.now() / 1000);
    const token = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
      new SignJWT({ sub: "alice", tid: "acme", iat: now(), ...claims })
        .setProtectedHeader({ alg: "HS256", ...header })
        .sign(key);

    it.each([
      ["without exp", {}],
      ["expired 90 s ago, beyond the leeway", { exp: now() - 90 }],
      ["valid only from 2 minutes on (nbf)", { exp: now() + 3600, nbf: now() + 120 }],
      ["issued ten years ahead (iat)", { exp: now() + 3600, iat: now() + 10 * 365 * 86_400 }],
      ["issued 2 minutes ahead (iat)", { exp: now() + 3600, iat: now() + 120 }],
    ])("refuses a token %s", async (_label, claims) => {
      expect((await rejection(`Bearer ${await token(claims)}`)).status).toBe(401);
    });

    it.each([
      ["expired 30 s ago", { exp: now() - 30 }],
      ["valid from 5 s on (an ordinary skew)", { exp: now() + 3600, nbf: now() + 5 }],
      ["issued 30 s ahead", { exp: now() + 3600, iat: now() + 30 }],
    ])("accepts a token %s, within the 60 s leeway, and again when remembered", async (_label, claims) => {
      const bearer = `Bearer ${await token(claims)}`;
      expect((await authenticate(bearer)).userId).toBe("alice");
      expect((await authenticate(bearer)).userId).toBe("alice");
    });

    it("applies AUTH_CLOCK_LEEWAY_SECONDS", async () => {
      const strict = createAuthenticator(parseAuthSettings({ AUTH_SECRET: SECRET, AUTH_CLOCK_LEEWAY_SECONDS: "0" }));
      const error = await strict(`Bearer ${await token({ exp: now() - 5 })}`).catch((e: unknown) => e);
      expect((error as ProblemError).status).toBe(401);
    });

    it.each(["JWT", "at+jwt", "application/at+jwt"])("accepts typ %s", async (typ) => {
      expect((await authenticate(`Bearer ${await token({ exp: now() + 60 }, { typ })}`)).userId).toBe("alice");
    });

    it.each(["dpop+jwt", "logout+jwt", "JOSE"])("refuses typ %s: a token meant for something else", async (typ) => {
      expect((await rejection(`Bearer ${await token({ exp: now() + 60 }, { typ })}`)).status).toBe(401);
    });
  });

  it("refuses a token signed with another key", async () => {
    const token = await sign({ sub: "alice", tid: "acme" }, { secret: new TextEncoder().encode("x".repeat(40)) });
    expect((await rejection(`Bearer ${token}`)).status).toBe(401);
  });

  it("refuses alg none", async () => {
    const token = new UnsecuredJWT({ sub: "alice", tid: "acme" }).setExpirationTime("1h").encode();
    expect((await rejection(`Bearer ${token}`)).status).toBe(401);
  });

  it("refuses HS512 even with the right key", async () => {
    const token = await sign({ sub: "alice", tid: "acme" }, { alg: "HS512" });
    expect((await rejection(`Bearer ${token}`)).status).toBe(401);
  });

  it("refuses a tampered payload", async () => {
    const [header, , signature] = (await sign({ sub: "alice", tid: "acme" })).split(".");
    const forged = base64url.encode(JSON.stringify({ sub: "mallory", tid: "acme", exp: 4_000_000_000 }));
    expect((await rejection(`Bearer ${header}.${forged}.${signature}`)).status).toBe(401);
  });

  it.each([
    ["a missing sub", { tid: "acme" }],
    ["a missing tid", { sub: "alice" }],
    ["an over-long sub", { sub: "a".repeat(129), tid: "acme" }],
    ["a tid with a slash", { sub: "alice", tid: "ac/me" }],
    ["a sub with a NUL", { sub: "al\u0000ice", tid: "acme" }],
    ["an unknown role", { sub: "alice", tid: "acme", role: "root" }],
  ])("refuses %s", async (_label, claims) => {
    const token = await sign(claims);
    expect((await rejection(`Bearer ${token}`)).status).toBe(401);
  });
});
