import { describe, expect, it } from "vitest";
import { SettingsError } from "../settings/error.ts";
import { PUBLISHED_SECRETS } from "./published-secrets.ts";
import { parseAuthSettings } from "./settings.ts";

const SECRET = "s".repeat(32);
/** A secret of a deployment's own, made now: one written here would be published. */
const OWN_SECRET = `${crypto.randomUUID()}${crypto.randomUUID()}`;
const ISSUER = "https://idp.example/";
const AUDIENCE = "edge-api";
const PUBLIC_JWKS = JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "1" }] });

function refusal(raw: Record<string, string>): SettingsError {
  try {
    parseAuthSettings(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error("accepted");
}

describe("auth settings", () => {
  it("defaults the claim names to tid and role, and reads the rest", () => {
    expect(
      parseAuthSettings({ AUTH_JWKS: PUBLIC_JWKS, AUTH_ISSUER: "https://idp/", AUTH_AUDIENCE: "a,b" }),
    ).toMatchObject({
      secret: undefined,
      jwks: JSON.parse(PUBLIC_JWKS),
      issuer: "https://idp/",
      audience: ["a", "b"],
      tenantClaim: "tid",
      roleClaim: "role",
    });
  });

  it("reads AUTH_ISSUER without the spaces or line break around it, as each AUTH_AUDIENCE entry", () => {
    // Kept, " https://idp.example/\n" would refuse every token as `wrong issuer`, naming no setting.
    expect(
      parseAuthSettings({ AUTH_JWKS: PUBLIC_JWKS, AUTH_ISSUER: ` ${ISSUER}\n`, AUTH_AUDIENCE: ` ${AUDIENCE}\n` }),
    ).toMatchObject({ issuer: ISSUER, audience: [AUDIENCE] });
  });

  it("needs some way to check tokens", () => {
    expect(refusal({}).setting).toBe("AUTH_SECRET");
  });

  it.each([
    ["AUTH_SECRET", { AUTH_SECRET: "too-short" }],
    ["AUTH_JWKS", { AUTH_JWKS: "{not json", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE }],
    ["AUTH_JWKS", { AUTH_JWKS: '{"keys": []}', AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE }],
    [
      "AUTH_JWKS",
      { AUTH_JWKS: '{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}', AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE },
    ],
    [
      "AUTH_JWKS",
      { AUTH_JWKS: '{"keys": [{"kty": "EC", "d": "private-part"}]}', AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE },
    ],
    [
      "AUTH_JWKS",
      { AUTH_JWKS: PUBLIC_JWKS, AUTH_JWKS_URL: "https://idp/jwks", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE },
    ],
    ["AUTH_JWKS_URL", { AUTH_JWKS_URL: "not a url", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE }],
    ["AUTH_JWKS_URL", { AUTH_JWKS_URL: "http://idp.example/jwks", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE }],
    // fetch refuses a URL with credentials: every key set fetch would fail, its error quoting the password.
    [
      "AUTH_JWKS_URL",
      { AUTH_JWKS_URL: "https://user:hunter2-password@idp.example/jwks", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE },
    ],
    ["AUTH_ISSUER", { AUTH_JWKS: PUBLIC_JWKS, AUTH_AUDIENCE: AUDIENCE }],
    ["AUTH_ISSUER", { AUTH_JWKS_URL: "https://idp.example/jwks", AUTH_AUDIENCE: AUDIENCE }],
    ["AUTH_AUDIENCE", { AUTH_JWKS: PUBLIC_JWKS, AUTH_ISSUER: ISSUER }],
    ["AUTH_AUDIENCE", { AUTH_JWKS_URL: "https://idp.example/jwks", AUTH_ISSUER: ISSUER }],
    ["AUTH_AUDIENCE", { AUTH_JWKS_URL: "https://idp.example/jwks", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: " , " }],
    [
      "AUTH_SECRET",
      { AUTH_JWKS_URL: "https://idp.example/jwks", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE, AUTH_SECRET: SECRET },
    ],
    ["AUTH_JWKS_CACHE_SECONDS", { AUTH_SECRET: SECRET, AUTH_JWKS_CACHE_SECONDS: "ten" }],
    ["AUTH_JWKS_CACHE_SECONDS", { AUTH_SECRET: SECRET, AUTH_JWKS_CACHE_SECONDS: "86401" }],
    ["AUTH_JWKS_STALE_IF_ERROR_SECONDS", { AUTH_SECRET: SECRET, AUTH_JWKS_STALE_IF_ERROR_SECONDS: "-1" }],
    ["AUTH_JWKS_STALE_IF_ERROR_SECONDS", { AUTH_SECRET: SECRET, AUTH_JWKS_STALE_IF_ERROR_SECONDS: "604801" }],
    ["AUTH_MAX_TOKEN_AGE_SECONDS", { AUTH_SECRET: SECRET, AUTH_MAX_TOKEN_AGE_SECONDS: "31536001" }],
    ["AUTH_MAX_TOKEN_AGE_SECONDS", { AUTH_SECRET: SECRET, AUTH_MAX_TOKEN_AGE_SECONDS: "a day" }],
    ["AUTH_SECRET_SCOPE", { AUTH_SECRET: SECRET, AUTH_SECRET_SCOPE: "production" }],
    [
      "AUTH_SECRET_SCOPE",
      { AUTH_JWKS: PUBLIC_JWKS, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE, AUTH_SECRET_SCOPE: "local" },
    ],
    ["AUTH_ISSUER", { AUTH_SECRET: OWN_SECRET, AUTH_SECRET_SCOPE: "deployment", AUTH_AUDIENCE: AUDIENCE }],
    ["AUTH_AUDIENCE", { AUTH_SECRET: OWN_SECRET, AUTH_SECRET_SCOPE: "deployment", AUTH_ISSUER: ISSUER }],
    [
      "AUTH_SECRET",
      { AUTH_SECRET: SECRET, AUTH_SECRET_SCOPE: "deployment", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE },
    ],
    ["AUTH_CLOCK_LEEWAY_SECONDS", { AUTH_SECRET: SECRET, AUTH_CLOCK_LEEWAY_SECONDS: "61" }],
    ["AUTH_CLOCK_LEEWAY_SECONDS", { AUTH_SECRET: SECRET, AUTH_CLOCK_LEEWAY_SECONDS: "1.5" }],
    ["AUTH_TENANT_CLAIM", { AUTH_SECRET: SECRET, AUTH_TENANT_CLAIM: "sub" }],
    ["AUTH_ROLE_CLAIM", { AUTH_SECRET: SECRET, AUTH_ROLE_CLAIM: "has space" }],
    ["AUTH_ROLE_CLAIM", { AUTH_SECRET: SECRET, AUTH_ROLE_CLAIM: "tid" }],
    ["AUTH_ROLE_CLAIM", { AUTH_SECRET: SECRET, AUTH_TENANT_CLAIM: "org_id", AUTH_ROLE_CLAIM: " org_id" }],
  ])("refuses a bad %s, naming it and not its value", (setting, raw) => {
    const error = refusal(raw);
    expect(error.setting).toBe(setting);
    expect(error.message.startsWith(`${setting} `)).toBe(true);
    for (const value of Object.values(raw)) expect(error.message).not.toContain(value);
  });

  it("takes AUTH_SECRET in a deployment only when asked, with an issuer and an audience, as a JWKS", () => {
    const deployed = { AUTH_SECRET: OWN_SECRET, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE };
    expect(parseAuthSettings({ ...deployed, AUTH_SECRET_SCOPE: "deployment" })).toMatchObject({
      secret: OWN_SECRET,
      secretScope: "deployment",
      issuer: ISSUER,
      audience: [AUDIENCE],
    });
    expect(parseAuthSettings({ AUTH_SECRET: SECRET, AUTH_SECRET_SCOPE: "local" }).secretScope).toBe("local");
    expect(parseAuthSettings({ AUTH_SECRET: SECRET }).secretScope).toBeUndefined();
  });

  it.each([...PUBLISHED_SECRETS, "x".repeat(40), "abababababababababababababababab"])(
    "refuses a published or placeholder secret in a deployment: %s",
    (secret) => {
      const error = refusal({
        AUTH_SECRET: secret,
        AUTH_SECRET_SCOPE: "deployment",
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
      });
      expect(error.setting).toBe("AUTH_SECRET");
      expect(error.message).toMatch(/^AUTH_SECRET is published/);
      expect(error.message).not.toContain(secret);
    },
  );

  it("bounds a token's age at a day by default; 0 takes any age", () => {
    expect(parseAuthSettings({ AUTH_SECRET: SECRET }).maxTokenAgeSeconds).toBe(86_400);
    expect(parseAuthSettings({ AUTH_SECRET: SECRET, AUTH_MAX_TOKEN_AGE_SECONDS: "0" }).maxTokenAgeSeconds).toBe(0);
  });

  it("keeps a key set fresh at most a day, and through an outage at most a week", () => {
    expect(
      parseAuthSettings({
        AUTH_SECRET: SECRET,
        AUTH_JWKS_CACHE_SECONDS: "86400",
        AUTH_JWKS_STALE_IF_ERROR_SECONDS: "604800",
      }),
    ).toMatchObject({ jwksCacheSeconds: 86_400, jwksStaleIfErrorSeconds: 604_800 });
    expect(refusal({ AUTH_SECRET: SECRET, AUTH_JWKS_CACHE_SECONDS: "0" }).message).toBe(
      "AUTH_JWKS_CACHE_SECONDS must be a whole number of seconds from 1 to 86400",
    );
  });

  it("allows plain http for a JWKS on this machine only", () => {
    expect(
      parseAuthSettings({ AUTH_JWKS_URL: "http://127.0.0.1:9/jwks", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE })
        .jwksUrl,
    ).toBe("http://127.0.0.1:9/jwks");
  });

  it("defaults the key set's lifetimes and the clock leeway", () => {
    expect(parseAuthSettings({ AUTH_SECRET: SECRET })).toMatchObject({
      jwksCacheSeconds: 600,
      jwksStaleIfErrorSeconds: 86_400,
      clockLeewaySeconds: 60,
    });
    expect(
      parseAuthSettings({
        AUTH_SECRET: SECRET,
        AUTH_JWKS_CACHE_SECONDS: "30",
        AUTH_JWKS_STALE_IF_ERROR_SECONDS: "0",
        AUTH_CLOCK_LEEWAY_SECONDS: "0",
      }),
    ).toMatchObject({ jwksCacheSeconds: 30, jwksStaleIfErrorSeconds: 0, clockLeewaySeconds: 0 });
  });
});
