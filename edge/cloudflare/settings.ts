import type { InvocationLimits } from "../../core/background/invocation-budget.ts";
import { MAX_INT, namesOf, parseGroup, settingsGroup, wholeNumber, withDefault } from "../../core/settings/schema.ts";
import { readSettings, type SettingName, type Settings, SettingsError } from "../../core/settings/settings.ts";
import type { WorkersKvNamespace } from "../kv/workers-kv.ts";

/** Subrequests left to whatever else an invocation fetches (a key set through AUTH_JWKS_URL). */
const RESERVED_SUBREQUESTS = 2;
/** Workers' limit on the KV operations of one invocation, on every plan. */
const WORKERS_KV_OPERATIONS = 1_000;
/**
 * KV operations left to a request's sign-in: with AUTH_JWKS_URL, a fresh isolate reads the key
 * set kept in KV when the provider is late, and writes the one it fetched (stored-key-set.ts),
 * the write in the background of that request, beside a resync or sync spending the rest.
 */
export const RESERVED_KV_OPERATIONS = 2;

/**
 * The Workers entry's own setting, beside core's: the subrequests its plan allows an invocation
 * (Free 50, the default; Paid 10,000 unless raised). One invocation may then spend 1,000 KV
 * operations on every plan, less what its sign-in may take, and as many SQL statements (each a
 * fetch to Neon, a subrequest) as the plan leaves: a cron run that syncs a long backlog stops at
 * the limit and the next run resumes, instead of failing midway.
 */
export const WORKERS_SETTINGS = settingsGroup(
  { WORKERS_SUBREQUESTS: withDefault(wholeNumber(10, MAX_INT), "50") },
  (values): InvocationLimits => ({
    kvOperations: WORKERS_KV_OPERATIONS - RESERVED_KV_OPERATIONS,
    sqlStatements: values.WORKERS_SUBREQUESTS - RESERVED_SUBREQUESTS,
  }),
);

export const WORKERS_SETTING_NAMES = namesOf(WORKERS_SETTINGS);

type SettingBinding = SettingName | (typeof WORKERS_SETTING_NAMES)[number];

/**
 * The worker's bindings (wrangler.toml): the KV namespace, and every setting as a var or secret.
 * A var is text only when written as text: wrangler binds `LINK_MAX_PER_USER = 100` (unquoted)
 * as the number 100, and a dashboard var of type JSON as what it holds.
 */
export type Bindings = { LINKS: WorkersKvNamespace } & Partial<Record<SettingBinding, unknown>>;

/** Settings from vars and secrets: the same object every runtime builds. */
export function settingsFromBindings(env: Bindings): Settings {
  return readSettings((name) => textOf(env, name));
}

/**
 * The LINKS namespace, or a SettingsError naming it: a wrangler environment inherits no
 * [[kv_namespaces]], and without the binding every KV call would fail unseen, as a miss.
 */
export function linksNamespace(env: Bindings): WorkersKvNamespace {
  if (env.LINKS) return env.LINKS;
  throw new SettingsError("LINKS", "must be a KV namespace binding ([[kv_namespaces]] in wrangler.toml)");
}

/** What one invocation may spend (WORKERS_SETTINGS). */
export const invocationLimits = (env: Bindings): InvocationLimits =>
  parseGroup(WORKERS_SETTINGS, { WORKERS_SUBREQUESTS: textOf(env, "WORKERS_SUBREQUESTS") });

/**
 * A setting's binding as the text every other runtime hands over. A var bound as JSON is refused
 * by name, like any unusable setting: read as it is, it failed every request with a TypeError
 * that named nothing. Its value stays out of the message, as every setting's does.
 */
function textOf(env: Bindings, name: SettingBinding): string | undefined {
  const value = env[name];
  if (value === undefined || typeof value === "string") return value;
  throw new SettingsError(name, `must be text: quote it in wrangler.toml's [vars] (${name} = "…")`);
}
