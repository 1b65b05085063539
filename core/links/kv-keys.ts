// KV keys of cached links. External ids are almost arbitrary text (up to 256 characters, any
// printable code point, `/`, `#`, `?` …), while stores restrict keys: Fastly refuses `#;?^|`,
// CR/LF, "", ".", ".." and more than 1024 characters; Workers KV caps keys at 512 bytes. A hash of
// the canonical target fits every store whatever the input, and never leaks the id into a key.
// The tenant id (1-64 of A-Z a-z 0-9 _ -, checked by auth) is legal everywhere as it is: it leads
// the key, so one tenant's entries can be listed, and no entry of one tenant answers another's.
import { RecentMap } from "../lib/recent-map.ts";
import { sha256Hex } from "../lib/sha256.ts";
import type { LinkTarget } from "./link.ts";

/** Versioned: v1 keys (before tenants) are never read again and expire on their own. */
export const LINK_KEY_PREFIX = "links/v2/";

/** Where every cached link of one tenant lives: `links/v2/<tenantId>/`. */
export const tenantKeyPrefix = (tenantId: string) => `${LINK_KEY_PREFIX}${tenantId}/`;

// The hashes of recently used targets: a lookup then costs no digest (WebCrypto runs each one off
// the event loop and back, which was a good part of a cached lookup's time). Bounded; the oldest
// is forgotten first.
const targetHashes = new RecentMap<string, string>(1024);

/** `links/v2/<tenantId>/` + 64 hex digits of SHA-256(provider "\n" externalAccountId). */
export async function linkKey(tenantId: string, target: LinkTarget): Promise<string> {
  const text = targetText(target);
  let hash = targetHashes.get(text);
  if (hash === undefined) {
    hash = await sha256Hex(text);
    targetHashes.set(text, hash);
  }
  return tenantKeyPrefix(tenantId) + hash;
}

/** One string per canonical target: a provider never contains "\n", so it is unambiguous. */
export const targetText = (target: LinkTarget) => `${target.provider}\n${target.externalAccountId}`;
