// A refused token says why, in RFC 6750's terms and fixed words: the challenge names the reason
// and nothing that would help forge a token (no key, no kid, no expected issuer or audience).
import { base64url, exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { ProblemError } from "../http/problem.ts";
import { createAuthenticator } from "./auth.ts";
import { TOKEN_REFUSALS } from "./refusal.ts";
import { parseAuthSettings } from "./settings.ts";

const SECRET = "unit-test-secret-with-at-least-32-bytes";
const ISSUER = "https://idp.example/";
const AUDIENCE = "edge-api";
const now = () => Math.floor(Date.now() / 1000);
const hs256 = (claims: Record<string, unknown>, header: Record<string, unknown> = {}, secret = SECRET) =>
  new SignJWT({ sub: "alice", tid: "acme", iat: now(), ...claims })
    .setProtectedHeader({ alg: "HS256", ...header })
    .sign(new TextEncoder().encode(secret));

let signing: { privateKey: CryptoKey; jwk: JWK };
beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  signing = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" } };
});
const es256 = (claims: Record<string, unknown>, { kid = "k1", iss = ISSUER, aud = AUDIENCE } = {}) =>
  new SignJWT({ sub: "alice", tid: "acme", iat: now(), exp: now() + 3600, ...claims })
    .setProtectedHeader({ alg: "ES256", kid })
    .setIssuer(iss)
    .setAudience(aud)
    .sign(signing.privateKey);

async function challenge(settings: Record<string, string>, token: string) {
  const error = await createAuthenticator(parseAuthSettings(settings))(`Bearer ${token}`).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProblemError);
  const problem = error as ProblemError;
  expect(problem.status).toBe(401);
  return { header: problem.headers["www-authenticate"], detail: problem.detail };
}

const description = (reason: string) => `Bearer realm="api", error="invalid_token", error_description="${reason}"`;

describe("why a token is refused", () => {
  const development = { AUTH_SECRET: SECRET };
  it.each([
    ["expired", () => hs256({ exp: now() - 120 })],
    ["not yet valid", () => hs256({ exp: now() + 3600, nbf: now() + 300 })],
    ["not yet valid", () => hs256({ exp: now() + 3600, iat: now() + 300 })],
    ["missing exp", () => hs256({})],
    ["too old", () => hs256({ exp: now() + 3600, iat: now() - 86_400 - 61 })],
    ["missing iat", () => hs256({ exp: now() + 3600, iat: undefined })],
    ["wrong type", () => hs256({ exp: now() + 60 }, { typ: "dpop+jwt" })],
    ["bad signature", () => hs256({ exp: now() + 60 }, {}, "another-secret-of-at-least-32-bytes!")],
    [
      "algorithm not accepted",
      async () => new UnsecuredJWT({ sub: "alice", tid: "acme" }).setExpirationTime("1h").encode(),
    ],
    ["malformed", async () => "not.a.jwt"],
    ["invalid sub, tenant or role claim", () => hs256({ exp: now() + 60, tid: "not a tenant" })],
  ])("%s, with AUTH_SECRET", async (reason, token) => {
    const { header, detail } = await challenge(development, await token());
    expect(header).toBe(description(reason));
    expect(detail).toBe(`The token is refused: ${reason}.`);
  });

  it("a token older than AUTH_MAX_TOKEN_AGE_SECONDS (plus the leeway) is too old; 0 takes any age, and no iat", async () => {
    const settings = { ...development, AUTH_MAX_TOKEN_AGE_SECONDS: "600", AUTH_CLOCK_LEEWAY_SECONDS: "0" };
    const old = await hs256({ exp: now() + 3600, iat: now() - 601 });
    expect((await challenge(settings, old)).header).toBe(description("too old"));
    const authenticate = createAuthenticator(parseAuthSettings({ ...settings, AUTH_MAX_TOKEN_AGE_SECONDS: "0" }));
    await expect(authenticate(`Bearer ${old}`)).resolves.toMatchObject({ userId: "alice" });
    const ageless = await hs256({ exp: now() + 3600, iat: undefined });
    await expect(authenticate(`Bearer ${ageless}`)).resolves.toMatchObject({ userId: "alice" });
    const recent = await hs256({ exp: now() + 3600, iat: now() - 599 });
    await expect(createAuthenticator(parseAuthSettings(settings))(`Bearer ${recent}`)).resolves.toBeDefined();
  });

  it("exp and the maximum age end at their instant, to the millisecond, though jose reads whole seconds", async () => {
    const issued = now();
    // RFC 7519 allows a fraction of a second in a NumericDate.
    const token = `Bearer ${await hs256({ iat: issued, exp: issued + 10.25 })}`;
    const answerAt = (maxAge: string, seconds: number) =>
      createAuthenticator(
        parseAuthSettings({ ...development, AUTH_CLOCK_LEEWAY_SECONDS: "2", AUTH_MAX_TOKEN_AGE_SECONDS: maxAge }),
        { now: () => (issued + seconds) * 1000 },
      )(token).then(
        () => "accepted",
        (error: ProblemError) => error.headers["www-authenticate"],
      );
    expect(await answerAt("5", 6.999)).toBe("accepted");
    expect(await answerAt("5", 7.001)).toBe(description("too old")); // 5 s and the leeway's 2 have passed
    expect(await answerAt("0", 12.2)).toBe("accepted");
    expect(await answerAt("0", 12.3)).toBe(description("expired")); // exp and the leeway's 2 s have passed
  });

  it("a tampered payload: bad signature", async () => {
    const [head, , signature] = (await hs256({ exp: now() + 60 })).split(".");
    const forged = base64url.encode(JSON.stringify({ sub: "mallory", tid: "acme", exp: now() + 60 }));
    expect((await challenge(development, `${head}.${forged}.${signature}`)).header).toBe(description("bad signature"));
  });

  const provider = () => ({
    AUTH_JWKS: JSON.stringify({ keys: [signing.jwk] }),
    AUTH_ISSUER: ISSUER,
    AUTH_AUDIENCE: AUDIENCE,
  });
  it.each([
    ["wrong issuer", () => es256({}, { iss: "https://someone-else.example/" })],
    ["wrong audience", () => es256({}, { aud: "another-api" })],
    ["unknown key", () => es256({}, { kid: "k2" })],
    ["algorithm not accepted", () => hs256({ exp: now() + 60 })],
  ])("%s, with a JWKS, naming no expected value", async (reason, token) => {
    const { header, detail } = await challenge(provider(), await token());
    expect(header).toBe(description(reason));
    for (const secretOrExpected of [ISSUER, AUDIENCE, "k1", signing.jwk.x!]) {
      expect(header).not.toContain(secretOrExpected);
      expect(detail).not.toContain(secretOrExpected);
    }
  });

  it("every reason is a token RFC 6750 allows in error_description (%x20-21 / %x23-5B / %x5D-7E)", () => {
    for (const reason of TOKEN_REFUSALS) expect(reason).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
  });

  it("a request without a token gets the challenge alone, no error", async () => {
    const error = (await createAuthenticator(parseAuthSettings(development))(undefined).catch(
      (e: unknown) => e,
    )) as ProblemError;
    expect(error.headers["www-authenticate"]).toBe('Bearer realm="api"');
  });
});
