// Sign-in with an identity provider's keys: inline or fetched JWKS, the three algorithms providers
// use, issuer/audience, custom claim names, and the algorithm-confusion refusals.
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { refusedPort } from "../../dev/support/free-port.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { ProblemError } from "../http/problem.ts";
import type { Logger } from "../log.ts";
import { createAuthenticator } from "./auth.ts";
import { parseAuthSettings } from "./settings.ts";

const ALGORITHMS = ["RS256", "ES256", "EdDSA"] as const;
type Alg = (typeof ALGORITHMS)[number];

const keys = {} as Record<Alg, { privateKey: CryptoKey; publicKey: CryptoKey; jwk: JWK }>;

beforeAll(async () => {
  for (const alg of ALGORITHMS) {
    const pair = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}) });
    keys[alg] = { ...pair, jwk: { ...(await exportJWK(pair.publicKey)), kid: `${alg}-1`, alg } };
  }
});

const jwks = (...algs: Alg[]) => JSON.stringify({ keys: algs.map((alg) => keys[alg].jwk) });
const ISSUER = "https://idp.example/";
const AUDIENCE = "edge-api";
/** A JWKS setting with the issuer and audience it requires. */
const provider = (...algs: Alg[]) => ({ AUTH_JWKS: jwks(...algs), AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE });

function sign(
  alg: Alg,
  claims: Record<string, unknown> = { tid: "acme" },
  { iss = ISSUER, aud = AUDIENCE }: { iss?: string; aud?: string | null } = {},
) {
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg, kid: `${alg}-1` })
    .setSubject("alice")
    .setIssuer(iss)
    .setIssuedAt()
    .setExpirationTime("1h");
  if (aud) jwt = jwt.setAudience(aud);
  return jwt.sign(keys[alg].privateKey).then((token) => `Bearer ${token}`);
}

async function refused(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProblemError);
  expect((error as ProblemError).status).toBe(401);
}

describe("tokens from an identity provider (AUTH_JWKS)", () => {
  it.each(ALGORITHMS)("accepts %s", async (alg) => {
    const authenticate = createAuthenticator(parseAuthSettings(provider(...ALGORITHMS)));
    expect(await authenticate(await sign(alg, { tid: "acme", role: "admin" }))).toEqual({
      userId: "alice",
      tenantId: "acme",
      role: "admin",
    });
  });

  it("refuses a key that is not in the set", async () => {
    const authenticate = createAuthenticator(parseAuthSettings(provider("ES256")));
    await refused(authenticate(await sign("RS256")));
  });

  it("refuses HS256 when no AUTH_SECRET is set, and an HS256 token keyed with a public key's bytes", async () => {
    const authenticate = createAuthenticator(parseAuthSettings(provider("RS256")));
    const pem = new TextEncoder().encode(await exportSPKI(keys.RS256.publicKey));
    const confused = await new SignJWT({ tid: "acme" })
      .setProtectedHeader({ alg: "HS256", kid: "RS256-1" })
      .setSubject("alice")
      .setExpirationTime("1h")
      .sign(pem);
    await refused(authenticate(`Bearer ${confused}`));
    const jwkBytes = new TextEncoder().encode(JSON.stringify(keys.RS256.jwk));
    const confusedJwk = await new SignJWT({ tid: "acme" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .sign(jwkBytes);
    await refused(authenticate(`Bearer ${confusedJwk}`));
  });

  it("checks AUTH_ISSUER and AUTH_AUDIENCE when set", async () => {
    const authenticate = createAuthenticator(
      parseAuthSettings({ ...provider("ES256"), AUTH_AUDIENCE: "api, other-api" }),
    );
    expect((await authenticate(await sign("ES256", { tid: "acme" }, { aud: "api" }))).tenantId).toBe("acme");
    await refused(authenticate(await sign("ES256", { tid: "acme" }, { iss: "https://evil.example/", aud: "api" })));
    await refused(authenticate(await sign("ES256", { tid: "acme" }, { aud: "someone-else" })));
    await refused(authenticate(await sign("ES256", { tid: "acme" }, { aud: null })));
  });

  it("refuses a token of the same issuer meant for another API or client: another API's admin, an ID token", async () => {
    const authenticate = createAuthenticator(parseAuthSettings(provider("ES256")));
    expect((await authenticate(await sign("ES256", { tid: "acme" }))).tenantId).toBe("acme");
    await refused(authenticate(await sign("ES256", { tid: "acme", role: "admin" }, { aud: "billing-api" })));
    await refused(authenticate(await sign("ES256", { tid: "acme", nonce: "n" }, { aud: "spa-client-id" })));
  });

  it("reads the tenant and role from the claims AUTH_TENANT_CLAIM and AUTH_ROLE_CLAIM name", async () => {
    const authenticate = createAuthenticator(
      parseAuthSettings({
        ...provider("RS256"),
        AUTH_TENANT_CLAIM: "https://example.com/org",
        AUTH_ROLE_CLAIM: "app_role",
      }),
    );
    const token = await sign("RS256", {
      "https://example.com/org": "org_1",
      app_role: "service",
      tid: "ignored",
      role: "admin",
    });
    expect(await authenticate(token)).toEqual({ userId: "alice", tenantId: "org_1", role: "service" });
    await refused(authenticate(await sign("RS256", { tid: "acme" })));
  });
});

describe("tokens checked against AUTH_JWKS_URL", () => {
  // The provider, as a `fetch` (core's tests run under Deno too, without network permission);
  // the conformance suite fetches a real URL on every runtime.
  const JWKS_URL = "https://idp.example/.well-known/jwks.json";
  let served: JWK[] = [];
  const asked: string[] = [];
  const provider: typeof fetch = async (input) => {
    asked.push(String(input));
    return Response.json({ keys: served });
  };

  it("fetches the set once, reuses it, and refetches it for an unknown kid (a rotated key)", async () => {
    served = [keys.RS256.jwk];
    asked.length = 0;
    const authenticate = createAuthenticator(
      parseAuthSettings({ AUTH_JWKS_URL: JWKS_URL, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE }),
      {
        fetch: provider,
        cooldownMs: 0,
      },
    );
    await authenticate(await sign("RS256"));
    await authenticate(await sign("RS256"));
    expect(asked).toEqual([JWKS_URL]);
    served = [keys.RS256.jwk, keys.ES256.jwk];
    expect((await authenticate(await sign("ES256"))).userId).toBe("alice");
    expect(asked).toEqual([JWKS_URL, JWKS_URL]);
  });

  it.each([
    ["is unreachable", async () => Promise.reject(new TypeError("fetch failed"))],
    ["answers 500", async () => new Response("oops", { status: 500 })],
    ["answers something that is not a JWKS", async () => Response.json({ keys: "none" })],
  ])("answers 503 keys_unavailable, not 401, when the provider %s", async (_label, broken) => {
    const authenticate = createAuthenticator(
      parseAuthSettings({ AUTH_JWKS_URL: JWKS_URL, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE }),
      {
        fetch: broken as typeof fetch,
      },
    );
    const error = await authenticate(await sign("RS256")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).toProblem()).toMatchObject({ status: 503, code: "keys_unavailable" });
    expect((error as ProblemError).headers["retry-after"]).toBe("5");
  });

  it("does not refetch for every unknown kid: at most once per cooldown", async () => {
    served = [keys.RS256.jwk];
    asked.length = 0;
    const authenticate = createAuthenticator(
      parseAuthSettings({ AUTH_JWKS_URL: JWKS_URL, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE }),
      {
        fetch: provider,
        cooldownMs: 60_000,
      },
    );
    await authenticate(await sign("RS256"));
    await refused(authenticate(await sign("EdDSA")));
    await refused(authenticate(await sign("EdDSA")));
    expect(asked).toEqual([JWKS_URL]);
  });

  it("keeps verifying with the cached key while the provider is down past the cache lifetime; a new key gets 503", async () => {
    served = [keys.RS256.jwk];
    let down = false;
    let at = Date.now();
    const flaky: typeof fetch = async (input) => (down ? new Response("down", { status: 502 }) : provider(input));
    const authenticate = createAuthenticator(
      parseAuthSettings({
        AUTH_JWKS_URL: JWKS_URL,
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
        AUTH_JWKS_CACHE_SECONDS: "60",
      }),
      { fetch: flaky, now: () => at },
    );
    await authenticate(await sign("RS256"));
    down = true;
    for (const minutes of [2, 20, 50]) {
      at = Date.now() + minutes * 60_000;
      expect((await authenticate(await sign("RS256", { tid: "acme", jti: String(minutes) }))).userId).toBe("alice");
    }
    const error = await authenticate(await sign("ES256")).catch((e: unknown) => e);
    expect((error as ProblemError).status).toBe(503);
  });

  it("an instance started while the provider is down verifies with the set an earlier one kept in the KV store", async () => {
    served = [keys.RS256.jwk];
    let down = false;
    const flaky: typeof fetch = async (input) => (down ? new Response("down", { status: 502 }) : provider(input));
    const kv = createMemoryKv();
    const settings = parseAuthSettings({ AUTH_JWKS_URL: JWKS_URL, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE });
    const writes: Promise<unknown>[] = [];
    await createAuthenticator(settings, { fetch: flaky, kv })(await sign("RS256"), (work) => writes.push(work));
    await Promise.all(writes);
    down = true;
    const token = await sign("RS256", { tid: "acme", jti: "fresh-instance" });
    expect((await createAuthenticator(settings, { fetch: flaky, kv })(token)).userId).toBe("alice");
    const withoutStore = await createAuthenticator(settings, { fetch: flaky })(token).catch((e: unknown) => e);
    expect((withoutStore as ProblemError).status).toBe(503);
  });

  it("logs each failed fetch as one warning saying why and until when the cached set still verifies", async () => {
    served = [keys.RS256.jwk];
    let down = false;
    const flaky: typeof fetch = async (input) => (down ? new Response("down", { status: 502 }) : provider(input));
    const fetchedAt = Date.now();
    let at = fetchedAt;
    const warnings: Array<{ event: string; fields?: Record<string, unknown> }> = [];
    const logger: Logger = { log: (level, event, fields) => level === "warn" && warnings.push({ event, fields }) };
    const settings = { AUTH_JWKS_URL: JWKS_URL, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE };
    const stale = parseAuthSettings({
      ...settings,
      AUTH_JWKS_CACHE_SECONDS: "60",
      AUTH_JWKS_STALE_IF_ERROR_SECONDS: "3600",
    });
    const authenticate = createAuthenticator(stale, { fetch: flaky, logger, now: () => at });
    const refreshes: Promise<unknown>[] = [];
    await authenticate(await sign("RS256"), (work) => refreshes.push(work));
    down = true;
    at += 2 * 60_000;
    expect(
      (await authenticate(await sign("RS256", { tid: "acme", jti: "stale" }), (work) => refreshes.push(work))).userId,
    ).toBe("alice");
    await Promise.all(refreshes);
    expect(warnings).toEqual([
      {
        event: "jwks_fetch_failed",
        fields: {
          error: "KeysUnavailableError: the JWKS could not be fetched: it answered 502",
          failures: 1,
          keysVerifyUntil: new Date(fetchedAt + 60_000 + 3_600_000).toISOString(),
        },
      },
    ]);
    // With no set at all, the 503 has its warning too.
    warnings.length = 0;
    const unkept = createAuthenticator(parseAuthSettings(settings), { fetch: flaky, logger });
    const error = await unkept(await sign("RS256")).catch((e: unknown) => e);
    expect((error as ProblemError).status).toBe(503);
    expect(warnings).toMatchObject([{ event: "jwks_fetch_failed", fields: { failures: 1, keysVerifyUntil: null } }]);
  });

  it("says why a provider that cannot be reached failed, not only that fetch failed", async () => {
    const warnings: Array<Record<string, unknown> | undefined> = [];
    const logger: Logger = { log: (_level, event, fields) => event === "jwks_fetch_failed" && warnings.push(fields) };
    const port = await refusedPort();
    const settings = { AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks`, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE };
    const error = await createAuthenticator(parseAuthSettings(settings), { logger })(await sign("RS256")).catch(
      (e: unknown) => e,
    );
    expect((error as ProblemError).status).toBe(503);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.error).toMatch(/fetch failed \(.*ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
  });
});
