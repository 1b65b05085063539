import type { InvocationLimits } from "../../core/background/invocation-budget.ts";
import { readSettings, type SettingName, type Settings, SettingsError } from "../../core/settings/settings.ts";
import type { WorkersKvNamespace } from "../kv/workers-kv.ts";

/** The Workers entry's own setting, beside core's: the subrequests its plan allows an invocation. */
export const WORKERS_SETTING_NAMES = ["WORKERS_SUBREQUESTS"] as const;

/** The worker's bindings (wrangler.toml): the KV namespace, and every setting as a var or secret. */
export type Bindings = { LINKS: WorkersKvNamespace } & Partial<
  Record<SettingName | (typeof WORKERS_SETTING_NAMES)[number], string>
>;

/** Settings from vars and secrets: the same object every runtime builds. */
export function settingsFromBindings(env: Bindings): Settings {
  return readSettings((name) => env[name]);
}

/** The Free plan's subrequests per invocation; Paid allows 10,000. */
const FREE_PLAN_SUBREQUESTS = 50;
/** Subrequests left to whatever else an invocation fetches (a key set through AUTH_JWKS_URL). */
const RESERVED_SUBREQUESTS = 2;

/**
 * What one invocation may spend: 1,000 KV operations on every plan, and as many SQL statements
 * (each a fetch to Neon, a subrequest) as the plan's WORKERS_SUBREQUESTS leaves. A cron run that
 * drains a long backlog stops at the limit and the next run resumes, instead of failing midway.
 */
export function invocationLimits(env: Bindings): InvocationLimits {
  const text = env.WORKERS_SUBREQUESTS?.trim();
  const subrequests = text ? Number(text) : FREE_PLAN_SUBREQUESTS;
  if ((text && !/^[0-9]+$/.test(text)) || subrequests < 10) {
    throw new SettingsError("WORKERS_SUBREQUESTS", "must be a whole number, at least 10 (Free plan 50, Paid 10000)");
  }
  return { kvOperations: 1_000, sqlStatements: subrequests - RESERVED_SUBREQUESTS };
}
