// KV keys of cached links. External ids are almost arbitrary text (up to 256 characters, any
// printable code point, `/`, `#`, `?` …), while stores restrict keys: Fastly refuses `#;?^|`,
// CR/LF, "", ".", ".." and more than 1024 characters; Workers KV caps keys at 512 bytes. A hash of
// the canonical target fits every store whatever the input, and never leaks the id into a key.
import type { LinkTarget } from "./link.ts";

/** Versioned, so a future value format can live beside this one and resync can list it. */
export const LINK_KEY_PREFIX = "links/v1/";

/** `links/v1/` + 64 hex digits of SHA-256(provider "\n" externalAccountId); targets are canonical. */
export async function linkKey(target: LinkTarget): Promise<string> {
  // A provider never contains "\n", so the pair is encoded without ambiguity.
  const text = `${target.provider}\n${target.externalAccountId}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return LINK_KEY_PREFIX + toHex(new Uint8Array(digest));
}

function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
