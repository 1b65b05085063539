import { describe, expect, it } from "vitest";
import { parseRateLimits } from "../http/rate-limit-settings.ts";
import { DEFAULT_MAX_LINKS_PER_USER } from "../links/link-settings.ts";
import { defaultsOf } from "./schema.ts";
import {
  DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS,
  DEFAULT_LINK_CACHE_TTL_SECONDS,
  DEFAULT_LINK_SYNC_INTERVAL_SECONDS,
  parseSettings,
  readSettings,
  SETTING_NAMES,
  SETTINGS_GROUPS,
  SettingsError,
} from "./settings.ts";

const AUTH_SECRET = "s".repeat(32);

describe("parseSettings", () => {
  it("applies the contract's defaults", () => {
    expect(parseSettings({ AUTH_SECRET })).toEqual({
      auth: expect.objectContaining({ secret: AUTH_SECRET, tenantClaim: "tid", roleClaim: "role" }),
      linkCacheTtlSeconds: DEFAULT_LINK_CACHE_TTL_SECONDS,
      linkSyncIntervalSeconds: DEFAULT_LINK_SYNC_INTERVAL_SECONDS,
      linkLimits: { maxPerUser: DEFAULT_MAX_LINKS_PER_USER, providers: undefined },
      idempotencyKeyTtlSeconds: DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS,
      databaseUrl: undefined,
      neonFetchEndpoint: undefined,
      serverTiming: false,
      rateLimits: parseRateLimits({}),
      trustedProxies: new Set(),
      corsOrigins: [],
    });
  });

  it("reads every setting", () => {
    const settings = parseSettings({
      AUTH_SECRET,
      LINK_CACHE_TTL_SECONDS: "120",
      LINK_SYNC_INTERVAL_SECONDS: "2",
      IDEMPOTENCY_KEY_TTL_SECONDS: "3600",
      DATABASE_URL: "postgres://u:p@h/db",
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:1/sql",
    });
    expect(settings.linkCacheTtlSeconds).toBe(120);
    expect(settings.linkSyncIntervalSeconds).toBe(2);
    expect(settings.idempotencyKeyTtlSeconds).toBe(3600);
    expect(settings.databaseUrl).toBe("postgres://u:p@h/db");
    expect(settings.neonFetchEndpoint).toBe("http://127.0.0.1:1/sql");
  });

  it("takes NEON_FETCH_ENDPOINT over http:// to this machine only, and https:// to any host", () => {
    for (const endpoint of [
      "http://127.0.0.1:4444/sql",
      "http://localhost:4444/sql",
      "http://[::1]:4444/sql",
      "https://db.internal:4444/sql",
    ]) {
      expect(parseSettings({ AUTH_SECRET, NEON_FETCH_ENDPOINT: endpoint }).neonFetchEndpoint).toBe(endpoint);
    }
    expect(() => parseSettings({ AUTH_SECRET, NEON_FETCH_ENDPOINT: "http://db.internal/sql" })).toThrow(
      /^NEON_FETCH_ENDPOINT must be an https:\/\/ URL \(http:\/\/ only to 127\.0\.0\.1, ::1 or localhost\)/,
    );
  });

  it("reads the link limits: a cap per user, and providers normalized as requests are", () => {
    const { linkLimits } = parseSettings({ AUTH_SECRET, LINK_MAX_PER_USER: "7", LINK_PROVIDERS: " GitHub ,gitlab" });
    expect(linkLimits).toEqual({ maxPerUser: 7, providers: new Set(["github", "gitlab"]) });
  });

  it("refuses a cache TTL below Workers KV's 60 seconds, naming it, rather than raising it", () => {
    expect(() => parseSettings({ AUTH_SECRET, LINK_CACHE_TTL_SECONDS: "5" })).toThrow(
      /^LINK_CACHE_TTL_SECONDS must be a whole number of seconds from 60 to 2147483647$/,
    );
    expect(parseSettings({ AUTH_SECRET, LINK_CACHE_TTL_SECONDS: "60" }).linkCacheTtlSeconds).toBe(60);
  });

  it("refuses what would overflow Postgres' int, which make_interval takes", () => {
    expect(() => parseSettings({ AUTH_SECRET, LINK_CACHE_TTL_SECONDS: "3000000000" })).toThrow(
      /^LINK_CACHE_TTL_SECONDS /,
    );
  });

  it("bounds every number it reads: past the largest it can honour, each is refused by name", () => {
    const numeric = SETTINGS_GROUPS.flatMap((group) =>
      Object.entries(defaultsOf(group)).filter(([, fallback]) => /^[0-9]+$/.test(fallback ?? "")),
    );
    expect(numeric.length).toBeGreaterThanOrEqual(7);
    for (const [name] of numeric) {
      expect(() => parseSettings({ AUTH_SECRET, [name]: "9".repeat(20) }), name).toThrow(
        new RegExp(`^${name} must be`),
      );
    }
  });

  it("refuses a TTL that is not a whole number", () => {
    expect(() => parseSettings({ AUTH_SECRET, LINK_CACHE_TTL_SECONDS: "soon" })).toThrow(SettingsError);
  });

  it("refuses a sync interval that is not a whole number of seconds from 1 up, naming it", () => {
    for (const value of ["0", "-5", "1.5", "often"]) {
      expect(() => parseSettings({ AUTH_SECRET, LINK_SYNC_INTERVAL_SECONDS: value })).toThrow(
        /LINK_SYNC_INTERVAL_SECONDS/,
      );
    }
  });

  it("keeps idempotency keys a day by default, and refuses a lifetime that is not a whole number of seconds a Postgres int holds", () => {
    expect(DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS).toBe(86_400);
    for (const value of ["0", "-5", "1.5", "a day", "2147483648"]) {
      expect(() => parseSettings({ AUTH_SECRET, IDEMPOTENCY_KEY_TTL_SECONDS: value })).toThrow(
        /IDEMPOTENCY_KEY_TTL_SECONDS/,
      );
    }
  });

  it("refuses an AUTH_SECRET under 32 bytes", () => {
    expect(() => parseSettings({ AUTH_SECRET: "short" })).toThrow(/at least 32 bytes/);
    expect(() => parseSettings({})).toThrow(SettingsError);
  });

  it.each([
    ["DATABASE_URL", { DATABASE_URL: "postgress://u:p@h/db" }],
    ["DATABASE_URL", { DATABASE_URL: "mysql://u:p@h/db" }],
    ["NEON_FETCH_ENDPOINT", { NEON_FETCH_ENDPOINT: "127.0.0.1:4444/sql" }],
    ["NEON_FETCH_ENDPOINT", { NEON_FETCH_ENDPOINT: "http://db.internal:4444/sql" }],
    ["NEON_FETCH_ENDPOINT", { NEON_FETCH_ENDPOINT: "http://10.0.0.7/sql" }],
    ["NEON_FETCH_ENDPOINT", { NEON_FETCH_ENDPOINT: "http://127.0.0.1.nip.io/sql" }],
    ["NEON_FETCH_ENDPOINT", { NEON_FETCH_ENDPOINT: "https://user:hunter2-password@db.internal/sql" }],
    ["LINK_CACHE_TTL_SECONDS", { LINK_CACHE_TTL_SECONDS: "1.5" }],
    ["LINK_MAX_PER_USER", { LINK_MAX_PER_USER: "0" }],
    ["LINK_MAX_PER_USER", { LINK_MAX_PER_USER: "2.5" }],
    ["LINK_MAX_PER_USER", { LINK_MAX_PER_USER: "lots" }],
    ["LINK_MAX_PER_USER", { LINK_MAX_PER_USER: "3000000000" }],
    ["LINK_PROVIDERS", { LINK_PROVIDERS: "github,,gitlab" }],
    ["LINK_PROVIDERS", { LINK_PROVIDERS: "github,git hub" }],
    ["LINK_PROVIDERS", { LINK_PROVIDERS: "-github" }],
    // A list is taken as written: an empty entry is refused, as LINK_PROVIDERS' and TRUSTED_PROXIES' are.
    ["CORS_ORIGINS", { CORS_ORIGINS: "https://app.example,,https://admin.example" }],
    ["CORS_ORIGINS", { CORS_ORIGINS: "https://app.example," }],
    ["AUTH_AUDIENCE", { AUTH_AUDIENCE: "edge-api,,other-api" }],
    ["AUTH_AUDIENCE", { AUTH_AUDIENCE: ",edge-api" }],
    // Written twice, an entry is most likely a typo for another: refused, as written, not merged.
    ["CORS_ORIGINS", { CORS_ORIGINS: "https://app.example, https://app.example" }],
    ["AUTH_AUDIENCE", { AUTH_AUDIENCE: "edge-api,edge-api" }],
    ["LINK_PROVIDERS", { LINK_PROVIDERS: "github,GitHub" }],
    ["TRUSTED_PROXIES", { TRUSTED_PROXIES: "10.0.0.1,::ffff:10.0.0.1" }],
  ])("refuses a bad %s, naming it and not its value", (setting, raw) => {
    const error = (() => {
      try {
        parseSettings({ AUTH_SECRET, ...raw });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).setting).toBe(setting);
    expect((error as SettingsError).message).toMatch(new RegExp(`^${setting} `));
    expect((error as SettingsError).message).not.toContain(Object.values(raw)[0]);
  });

  it("reads every setting, and only those, through a runtime's lookup", () => {
    const asked: string[] = [];
    const values: Record<string, string> = { AUTH_SECRET, LINK_CACHE_TTL_SECONDS: "90", PORT: "1" };
    const settings = readSettings((name) => {
      asked.push(name);
      return values[name];
    });
    expect(asked.sort()).toEqual([...SETTING_NAMES].sort());
    expect(settings).toMatchObject({ auth: { secret: AUTH_SECRET }, linkCacheTtlSeconds: 90 });
  });
});
