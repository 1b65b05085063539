// The settings of the service: the groups each part declares (settings/schema.ts), composed. Every
// runtime only collects the raw strings, from wherever it holds them, and parses them here.
import * as v from "valibot";
import { CLIENT_ADDRESS_SETTINGS } from "../http/client-address.ts";
import { CORS_SETTINGS } from "../http/cors-settings.ts";
import { RATE_LIMIT_SETTINGS } from "../http/rate-limit-settings.ts";
import { IDEMPOTENCY_SETTINGS } from "../idempotency/key.ts";
import { isLoopbackHost } from "../lib/loopback.ts";
import { holdsCredentials, parsedUrl } from "../lib/url.ts";
import { LINK_SETTINGS } from "../links/link-settings.ts";
import { TELEMETRY_SETTINGS } from "../telemetry/settings.ts";
import { KEY_SET_MAC_SETTINGS } from "../tokens/key-set-mac.ts";
import { AUTH_SETTINGS } from "../tokens/settings.ts";
import {
  type NamesOf,
  namesOf,
  onOff,
  optional,
  parseGroup,
  type RawSettings,
  settingsGroup,
  text,
  withDefault,
} from "./schema.ts";

export { DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS } from "../idempotency/key.ts";
export { DEFAULT_LINK_CACHE_TTL_SECONDS, DEFAULT_LINK_SYNC_INTERVAL_SECONDS } from "../links/link-settings.ts";
export { MIN_AUTH_SECRET_BYTES } from "../tokens/settings.ts";
export { SettingsError } from "./error.ts";
export type { RawSettings } from "./schema.ts";

// A typo such as postgress:// must not quietly fall back to another database.
const postgresUrl = v.pipe(
  text,
  v.check(
    (url) => /^postgres(ql)?:\/\//.test(url) && (parsedUrl(url)?.hostname ?? "") !== "",
    "must be a postgres:// or postgresql:// URL",
  ),
);
// The driver sends DATABASE_URL, password included, with every request to this endpoint: in clear
// text only to this machine.
const sqlEndpointUrl = v.pipe(
  text,
  v.check((url) => /^https?:\/\//.test(url) && parsedUrl(url) !== undefined, "must be an http:// or https:// URL"),
  v.check(
    (url) => url.startsWith("https://") || isLoopbackHost(new URL(url).hostname),
    "must be an https:// URL (http:// only to 127.0.0.1, ::1 or localhost): the password of DATABASE_URL travels with every request",
  ),
  v.check((url) => !holdsCredentials(new URL(url)), "must be a URL without user or password: fetch refuses one"),
);

/** The service's own settings: where its database is, and whether answers say where their time went. */
export const SERVICE_SETTINGS = settingsGroup(
  {
    DATABASE_URL: optional(postgresUrl),
    NEON_FETCH_ENDPOINT: optional(sqlEndpointUrl),
    SERVER_TIMING: withDefault(onOff, "off"),
  },
  (values) => ({
    databaseUrl: values.DATABASE_URL,
    neonFetchEndpoint: values.NEON_FETCH_ENDPOINT,
    /** Whether every response carries `Server-Timing` (SERVER_TIMING=on). */
    serverTiming: values.SERVER_TIMING,
  }),
);

/** Every group of core's settings, each read from the same raw strings: the one list of them. */
export const SETTINGS_GROUPS = [
  AUTH_SETTINGS,
  KEY_SET_MAC_SETTINGS,
  SERVICE_SETTINGS,
  LINK_SETTINGS,
  IDEMPOTENCY_SETTINGS,
  RATE_LIMIT_SETTINGS,
  CLIENT_ADDRESS_SETTINGS,
  CORS_SETTINGS,
  TELEMETRY_SETTINGS,
] as const;

/** What the groups build, merged into one object. */
type OutputsOf<Groups extends readonly v.GenericSchema[]> = Groups extends readonly [
  infer First extends v.GenericSchema,
  ...infer Rest extends readonly v.GenericSchema[],
]
  ? v.InferOutput<First> & OutputsOf<Rest>
  : unknown;

/** The same settings object on every runtime. */
export type Settings = OutputsOf<typeof SETTINGS_GROUPS>;

/** The names every runtime reads, whatever holds them (environment, bindings, stores). */
export type SettingName = NamesOf<(typeof SETTINGS_GROUPS)[number]>;
export const SETTING_NAMES: readonly SettingName[] = SETTINGS_GROUPS.flatMap((group) => namesOf(group));

/**
 * Checks every setting, group by group in the list's order; the first unusable one throws a
 * SettingsError naming it (never its value).
 */
export function parseSettings(raw: RawSettings): Settings {
  // Each group's output is its part of Settings: their union is the whole.
  return Object.assign({}, ...SETTINGS_GROUPS.map((group) => parseGroup(group, raw))) as Settings;
}

/** Settings from a runtime's own lookup: the same names, the same object, on every runtime. */
export function readSettings(read: (name: SettingName) => string | undefined): Settings {
  return parseSettings(Object.fromEntries(SETTING_NAMES.map((name) => [name, read(name)])));
}
