// A key the provider withdraws: how long a token signed with it is still accepted. The key set
// is refreshed once it is stale (AUTH_JWKS_CACHE_SECONDS), and a token that verified is
// remembered by its text for 60 s (verified-tokens.ts): a token verified just before the refresh
// that drops its key is accepted up to 60 s after it, never longer (docs/security.md).
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createAuthenticator } from "./auth.ts";
import { parseAuthSettings } from "./settings.ts";

const ISSUER = "https://idp.example/";
const AUDIENCE = "https://api.example";
const FRESH_SECONDS = 600;
const REMEMBERED_MS = 60_000;

async function signingKey(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "ES256" };
  const sign = (nowSeconds: number) =>
    new SignJWT({ sub: "alice", tid: "acme" })
      .setProtectedHeader({ alg: "ES256", kid })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + 7200)
      .sign(privateKey);
  return { jwk, sign };
}

describe("a key withdrawn at the provider", () => {
  it("verifies a token remembered before the refresh that dropped it for at most 60 s more", async () => {
    const [old, next] = await Promise.all([signingKey("old"), signingKey("next")]);
    const clock = { at: Date.now() };
    const published = { keys: [old.jwk, next.jwk] };
    let fetches = 0;
    const authenticate = createAuthenticator(
      parseAuthSettings({
        AUTH_JWKS_URL: "https://idp.example/jwks",
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
        AUTH_JWKS_CACHE_SECONDS: String(FRESH_SECONDS),
      }),
      {
        fetch: async () => {
          fetches++;
          return Response.json(published);
        },
        now: () => clock.at,
      },
    );
    const bearer = `Bearer ${await old.sign(Math.floor(clock.at / 1000))}`;
    const accepted = async () =>
      await authenticate(bearer).then(
        () => true,
        () => false,
      );

    expect(await accepted()).toBe(true);
    published.keys = [next.jwk]; // withdrawn: the set in memory still holds it while fresh
    clock.at += FRESH_SECONDS * 1000 + 1;
    // Stale: the token is checked against the stale set (which holds the key), and the refresh
    // this starts brings the set without it; the token is remembered from this check on.
    expect(await accepted()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fetches).toBe(2);
    clock.at += REMEMBERED_MS - 1;
    expect(await accepted()).toBe(true);
    clock.at += 1;
    expect(await accepted()).toBe(false);
  });
});
