// The links capability's settings: how long a cached link lives, how often a deployment syncs
// the change feed, and what a deployment lets one user link (how many accounts, of which providers).
import * as v from "valibot";
import { MIN_KV_TTL_SECONDS } from "../ports/kv.ts";
import {
  commaList,
  MAX_INT,
  MAX_TIMER_SECONDS,
  optional,
  seconds,
  settingsGroup,
  wholeNumber,
  withDefault,
} from "../settings/schema.ts";
import { TargetSchema } from "./link.ts";

/** Far above what a person links, far below what would make one user's links a burden. */
export const DEFAULT_MAX_LINKS_PER_USER = 100;
export const DEFAULT_LINK_CACHE_TTL_SECONDS = 300;
export const DEFAULT_LINK_SYNC_INTERVAL_SECONDS = 10;

export interface LinkLimits {
  maxPerUser: number;
  /** The providers a link may name, lower-case; undefined: any. */
  providers: ReadonlySet<string> | undefined;
}

/** A provider name normalized as a request's is (`GitHub` = `github`); undefined: none. */
function providerName(name: string): string | undefined {
  const parsed = v.safeParse(TargetSchema.entries.provider, name);
  return parsed.success ? String(parsed.output) : undefined;
}

/** Comma-separated provider names. */
const providerList = v.pipe(
  commaList(providerName, "provider names (A-Z a-z 0-9 . _ -)"),
  v.transform((names) => new Set(names)),
);

export const LINK_SETTINGS = settingsGroup(
  {
    // Workers KV refuses shorter lifetimes; the feed keeps changes this long, and 5 minutes more.
    LINK_CACHE_TTL_SECONDS: withDefault(seconds(MIN_KV_TTL_SECONDS, MAX_INT), String(DEFAULT_LINK_CACHE_TTL_SECONDS)),
    // A timer or a lease runs every interval.
    LINK_SYNC_INTERVAL_SECONDS: withDefault(seconds(1, MAX_TIMER_SECONDS), String(DEFAULT_LINK_SYNC_INTERVAL_SECONDS)),
    // The database takes it as an int.
    LINK_MAX_PER_USER: withDefault(wholeNumber(1, MAX_INT), String(DEFAULT_MAX_LINKS_PER_USER)),
    LINK_PROVIDERS: optional(providerList),
  },
  (values) => ({
    linkCacheTtlSeconds: values.LINK_CACHE_TTL_SECONDS,
    /** How often each deployment syncs the link change feed into its KV cache. */
    linkSyncIntervalSeconds: values.LINK_SYNC_INTERVAL_SECONDS,
    linkLimits: { maxPerUser: values.LINK_MAX_PER_USER, providers: values.LINK_PROVIDERS } as LinkLimits,
  }),
);
