// The bounds of every setting core reads, as each runtime's settings test checks them through its
// own reader: the values at each bound are taken, the values just past them (and what is not a
// whole number, or not on/off) refused with one line naming the setting.
import { expect } from "vitest";
import { SettingsError } from "../../core/settings/error.ts";

/** A development key: every case is read beside it. */
export const AUTH_SECRET = "s".repeat(32);

/** [setting, values taken, values refused]. */
export const SETTING_BOUNDS: readonly [string, string[], string[]][] = [
  // Workers KV's shortest lifetime, and the int Postgres' make_interval takes for the feed's retention.
  [
    "LINK_CACHE_TTL_SECONDS",
    ["60", "2147483647"],
    ["59", "5", "2147483648", "3000000000", "-60", "1.5", "1e3", "soon"],
  ],
  // The longest timer a runtime keeps (2^31 - 1 ms).
  ["LINK_SYNC_INTERVAL_SECONDS", ["1", "2147483"], ["0", "2147484", "1.5", "often"]],
  ["IDEMPOTENCY_KEY_TTL_SECONDS", ["1", "2147483647"], ["0", "2147483648", "a day"]],
  ["LINK_MAX_PER_USER", ["1", "2147483647"], ["0", "2147483648", "2.5", "lots"]],
  // A key set kept fresh at most a day, and through an outage at most a week.
  ["AUTH_JWKS_CACHE_SECONDS", ["1", "86400"], ["0", "86401", "2147483648", "ten"]],
  ["AUTH_JWKS_STALE_IF_ERROR_SECONDS", ["0", "604800"], ["-1", "604801", "2147483648"]],
  ["AUTH_CLOCK_LEEWAY_SECONDS", ["0", "60"], ["61", "-1", "1.5"]],
  // HMAC-SHA-256's own output size: a shorter key is easier to guess than the MAC.
  // A key's bytes are the key: a line break a file kept would make another one.
  ["AUTH_JWKS_KV_SECRET", ["k".repeat(32), "ü".repeat(16)], ["k".repeat(31), "ü".repeat(15), `${"k".repeat(32)}\n`]],
  ["AUTH_SECRET", ["s".repeat(32), "ü".repeat(16)], ["s".repeat(31), `${"s".repeat(32)}\n`, ` ${"s".repeat(32)}`]],
  // 0: any age; at most a year.
  ["AUTH_MAX_TOKEN_AGE_SECONDS", ["0", "31536000"], ["31536001", "-1", "a day"]],
  ["RATE_LIMIT_REFUSED_TOKENS", ["1", "4294967295"], ["0", "4294967296", "many"]],
  ["AUTH_SECRET_SCOPE", ["local"], ["production", "on"]],
  // A list is taken as written: no entry empty, none twice.
  [
    "TRUSTED_PROXIES",
    ["10.0.0.1", "10.0.0.1,2001:db8::1"],
    ["proxy.example", "10.0.0.0/8", "10.0.0.1,", "10.0.0.1,::ffff:10.0.0.1"],
  ],
  [
    "CORS_ORIGINS",
    ["https://app.example", " https://app.example , http://127.0.0.1:5173"],
    ["https://app.example/", "https://app.example,,http://127.0.0.1:5173", "https://app.example,https://app.example"],
  ],
  // fetch refuses a URL with credentials: every statement would fail.
  [
    "NEON_FETCH_ENDPOINT",
    ["https://db.example/sql", "http://127.0.0.1:4444/sql"],
    ["http://db.example/sql", "https://user:pw@db.example/sql"],
  ],
  // Traces go to <it>/v1/traces, appended as text.
  [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    ["https://otlp.example", "https://otlp.example/base/ "],
    ["otlp.example", "https://key:pw@otlp.example", "https://otlp.example/?tenant=a", "https://otlp.example#x"],
  ],
  ["SERVER_TIMING", ["on", "off"], ["yes", "true", "1"]],
  // Sent with every export: a name a request can carry, a value without a line break.
  ["OTEL_EXPORTER_OTLP_HEADERS", ["api-key=abc", "x-a=1,x-b=two%20words"], ["api key=abc", "x-a=one%0Atwo", "nopair"]],
];

/** Every case of SETTING_BOUNDS as a runtime's raw settings, for readers that must read them ahead. */
export const BOUND_CASES: Record<string, string>[] = SETTING_BOUNDS.flatMap(([setting, taken, refused]) =>
  [...taken, ...refused].map((value) => ({ AUTH_SECRET, [setting]: value })),
);

/** Whether `read` takes every value at a bound and refuses every value past one, naming the setting. */
export function expectBoundsHeld(read: (raw: Record<string, string>) => unknown): void {
  for (const [setting, taken, refused] of SETTING_BOUNDS) {
    for (const value of taken)
      expect(() => read({ AUTH_SECRET, [setting]: value }), `${setting}=${value}`).not.toThrow();
    for (const value of refused) {
      const attempt = () => read({ AUTH_SECRET, [setting]: value });
      expect(attempt, `${setting}=${value}`).toThrow(SettingsError);
      expect(attempt, `${setting}=${value}`).toThrow(new RegExp(`^${setting} must be `));
    }
  }
}
