// AUTH_JWKS's keys are imported once before any token is checked with them: a key WebCrypto
// cannot import is the setting's fault, named, not every caller's "malformed" token.
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { SettingsError } from "../settings/error.ts";
import { createAuthenticator } from "./auth.ts";
import { checkKeySet } from "./key-check.ts";
import { parseAuthSettings } from "./settings.ts";
import { checkTokenKeys } from "./verifier.ts";

const ACCEPTED = ["RS256", "ES256", "EdDSA", "Ed25519"];
const good = {} as Record<"RS256" | "ES256" | "EdDSA", { jwk: JWK; privateKey: CryptoKey }>;

beforeAll(async () => {
  for (const alg of ["RS256", "ES256", "EdDSA"] as const) {
    const pair = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}) });
    good[alg] = { jwk: { ...(await exportJWK(pair.publicKey)), kid: alg }, privateKey: pair.privateKey };
  }
});

const without = (jwk: JWK, member: string): JWK =>
  Object.fromEntries(Object.entries(jwk).filter(([m]) => m !== member));

async function refusal(keys: JWK[]): Promise<SettingsError> {
  const error = await checkKeySet({ keys }, ACCEPTED).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SettingsError);
  return error as SettingsError;
}

describe("checkKeySet", () => {
  it("accepts RSA, P-256 and Ed25519 keys, with or without alg", async () => {
    const keys = Object.values(good).map((key) => key.jwk);
    await checkKeySet({ keys }, ACCEPTED);
    await checkKeySet({ keys: keys.map((jwk) => ({ ...jwk, alg: jwk.kid })) }, ACCEPTED);
  });

  it.each([
    ["an RSA key without n", () => without(good.RS256.jwk, "n"), 'key "RS256"', "RS256"],
    [
      "a P-256 key whose x is cut short",
      () => ({ ...good.ES256.jwk, x: good.ES256.jwk.x!.slice(4) }),
      'key "ES256"',
      "ES256",
    ],
    ["an Ed25519 key without x", () => without(good.EdDSA.jwk, "x"), 'key "EdDSA"', "EdDSA"],
    ["an EC key without crv", () => without(good.ES256.jwk, "crv"), 'key "ES256"', "ES256"],
    ["a key without kid, named by its place", () => without(without(good.RS256.jwk, "n"), "kid"), "key 2", "RS256"],
  ])("refuses %s, naming AUTH_JWKS and the key", async (_label, broken, name, algorithm) => {
    const error = await refusal([good.ES256.jwk, broken()]);
    expect(error.setting).toBe("AUTH_JWKS");
    expect(error.message).toContain(`${name} that cannot be imported for ${algorithm}`);
  });

  it("leaves alone a key no accepted algorithm would select, however it is written", async () => {
    const broken = without(good.RS256.jwk, "n");
    const unused = [
      { ...broken, use: "enc" },
      { ...broken, alg: "RS384" },
      { ...without(good.ES256.jwk, "x"), crv: "P-384" },
      { ...without(good.EdDSA.jwk, "x"), crv: "X25519" },
    ];
    await checkKeySet({ keys: [good.ES256.jwk, ...unused] }, ACCEPTED);
  });
});

describe("a key set with a key that cannot be imported", () => {
  const settings = () =>
    parseAuthSettings({
      AUTH_JWKS: JSON.stringify({ keys: [good.ES256.jwk, without(good.RS256.jwk, "n")] }),
      AUTH_ISSUER: "https://idp.example/",
      AUTH_AUDIENCE: "edge-api",
    });

  it("is refused where a runtime can wait at start", async () => {
    await expect(checkTokenKeys(settings())).rejects.toThrow(SettingsError);
    await expect(
      checkTokenKeys(
        parseAuthSettings({
          AUTH_JWKS: JSON.stringify({ keys: [good.ES256.jwk] }),
          AUTH_ISSUER: "https://idp.example/",
          AUTH_AUDIENCE: "edge-api",
        }),
      ),
    ).resolves.toBeUndefined();
  });

  it("fails a token's check as the setting's fault, not as a malformed token, each time", async () => {
    const authenticate = createAuthenticator(settings());
    const token = await new SignJWT({ tid: "acme" })
      .setProtectedHeader({ alg: "ES256", kid: "ES256" })
      .setSubject("alice")
      .setIssuer("https://idp.example/")
      .setAudience("edge-api")
      .setExpirationTime("1h")
      .sign(good.ES256.privateKey);
    for (let i = 0; i < 2; i++) {
      const error = await authenticate(`Bearer ${token}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SettingsError);
      expect((error as SettingsError).setting).toBe("AUTH_JWKS");
    }
  });
});
