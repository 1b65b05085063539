// What a deployment lets one user link: how many accounts, and of which providers.
import * as v from "valibot";
import { SettingsError } from "../settings/error.ts";
import { TargetSchema } from "./link.ts";

export const LINK_LIMIT_SETTING_NAMES = ["LINK_MAX_PER_USER", "LINK_PROVIDERS"] as const;

/** Far above what a person links, far below what would make one user's links a burden. */
export const DEFAULT_MAX_LINKS_PER_USER = 100;

export interface LinkLimits {
  maxPerUser: number;
  /** The providers a link may name, lower-case; undefined: any. */
  providers: ReadonlySet<string> | undefined;
}

export function parseLinkLimits(raw: Record<string, string | undefined>): LinkLimits {
  return { maxPerUser: parseMaxPerUser(raw.LINK_MAX_PER_USER), providers: parseProviders(raw.LINK_PROVIDERS) };
}

function parseMaxPerUser(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_MAX_LINKS_PER_USER;
  const count = Number(value);
  // The database takes it as an integer.
  if (!Number.isInteger(count) || count < 1 || count > 2 ** 31 - 1) {
    throw new SettingsError("LINK_MAX_PER_USER", "must be a whole number, at least 1");
  }
  return count;
}

/** Comma-separated provider names, normalized as a request's are (`GitHub` = `github`). */
function parseProviders(value: string | undefined): ReadonlySet<string> | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const providers = new Set<string>();
  for (const name of value.split(",")) {
    const parsed = v.safeParse(TargetSchema.entries.provider, name);
    if (!parsed.success) {
      throw new SettingsError("LINK_PROVIDERS", "must be provider names separated by commas (A-Z a-z 0-9 . _ -)");
    }
    providers.add(parsed.output);
  }
  return providers;
}
