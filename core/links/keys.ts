// KV keys of cached links. External ids are almost arbitrary text (up to 256 characters, any
// printable code point, `/`, `#`, `?` …), while stores restrict keys: Fastly refuses `#;?^|`,
// CR/LF, "", ".", ".." and more than 1024 characters; Workers KV caps keys at 512 bytes. A hash of
// the canonical target fits every store whatever the input, and never leaks the id into a key.
import { sha256Hex } from "../sha256.ts";
import type { LinkTarget } from "./link.ts";

/** Versioned, so a future value format can live beside this one and resync can list it. */
export const LINK_KEY_PREFIX = "links/v1/";

/** `links/v1/` + 64 hex digits of SHA-256(provider "\n" externalAccountId); targets are canonical. */
export async function linkKey(target: LinkTarget): Promise<string> {
  return LINK_KEY_PREFIX + (await sha256Hex(targetText(target)));
}

/** One string per canonical target: a provider never contains "\n", so it is unambiguous. */
export const targetText = (target: LinkTarget) => `${target.provider}\n${target.externalAccountId}`;
