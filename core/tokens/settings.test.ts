import { describe, expect, it } from "vitest";
import { SettingsError } from "../settings/error.ts";
import { parseAuthSettings } from "./settings.ts";

const SECRET = "s".repeat(32);
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
    ["AUTH_ISSUER", { AUTH_JWKS: PUBLIC_JWKS, AUTH_AUDIENCE: AUDIENCE }],
    ["AUTH_ISSUER", { AUTH_JWKS_URL: "https://idp.example/jwks", AUTH_AUDIENCE: AUDIENCE }],
    ["AUTH_AUDIENCE", { AUTH_JWKS: PUBLIC_JWKS, AUTH_ISSUER: ISSUER }],
    ["AUTH_AUDIENCE", { AUTH_JWKS_URL: "https://idp.example/jwks", AUTH_ISSUER: ISSUER }],
    ["AUTH_AUDIENCE", { AUTH_JWKS_URL: "https://idp.example/jwks", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: " , " }],
    [
      "AUTH_SECRET",
      { AUTH_JWKS_URL: "https://idp.example/jwks", AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE, AUTH_SECRET: SECRET },
    ],
    ["AUTH_JWKS_CACHE_SECONDS", { AUTH_SECRET: SECRET, AUTH_JWKS_CACHE_SECONDS: "0" }],
    ["AUTH_JWKS_CACHE_SECONDS", { AUTH_SECRET: SECRET, AUTH_JWKS_CACHE_SECONDS: "ten" }],
    ["AUTH_JWKS_STALE_IF_ERROR_SECONDS", { AUTH_SECRET: SECRET, AUTH_JWKS_STALE_IF_ERROR_SECONDS: "-1" }],
    ["AUTH_CLOCK_LEEWAY_SECONDS", { AUTH_SECRET: SECRET, AUTH_CLOCK_LEEWAY_SECONDS: "61" }],
    ["AUTH_CLOCK_LEEWAY_SECONDS", { AUTH_SECRET: SECRET, AUTH_CLOCK_LEEWAY_SECONDS: "1.5" }],
    ["AUTH_TENANT_CLAIM", { AUTH_SECRET: SECRET, AUTH_TENANT_CLAIM: "sub" }],
    ["AUTH_ROLE_CLAIM", { AUTH_SECRET: SECRET, AUTH_ROLE_CLAIM: "has space" }],
  ])("refuses a bad %s, naming it and not its value", (setting, raw) => {
    const error = refusal(raw);
    expect(error.setting).toBe(setting);
    expect(error.message.startsWith(`${setting} `)).toBe(true);
    for (const value of Object.values(raw)) expect(error.message).not.toContain(value);
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
