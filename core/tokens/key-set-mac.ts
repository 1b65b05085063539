// The key set kept in the KV store (stored-key-set.ts) signed with a secret of the deployment's
// own, AUTH_JWKS_KV_SECRET, which lives in the settings (environment, Workers secret, Fastly
// Secret Store) and never in the store. With it set, a copy is taken only when its MAC
// (HMAC-SHA-256, WebCrypto on every runtime) holds: whoever writes the store without the secret
// can neither plant a set nor claim another fetch time for one. Without it, copies are taken
// unsigned, as docs/security.md says.
import { base64url } from "jose";
import { keyOfAtLeast, optional, settingsGroup } from "../settings/schema.ts";

/** HMAC-SHA-256's own output size: a shorter key would be easier to guess than the MAC. */
export const MIN_KEY_SET_SECRET_BYTES = 32;

/** Apart from every other use of the secret, should it ever have one. */
const CONTEXT = "edge-race-free key set v1\n";

export const KEY_SET_MAC_SETTINGS = settingsGroup(
  {
    AUTH_JWKS_KV_SECRET: optional(keyOfAtLeast(MIN_KEY_SET_SECRET_BYTES)),
  },
  (values) => ({
    /** Signs the key set kept in the KV store; unset: stored sets are taken unsigned. */
    jwksKvSecret: values.AUTH_JWKS_KV_SECRET,
  }),
);

export interface KeySetMac {
  /** The MAC of `signed`, base64url. */
  sign(signed: string): Promise<string>;
  /** Whether `mac` is `signed`'s (false for anything that is not a MAC at all). */
  verify(signed: string, mac: string): Promise<boolean>;
}

export function keySetMac(secret: string): KeySetMac {
  // Kept referenced for as long as the key: js-compute's WebCrypto may read a raw key's bytes
  // after the import instead of copying them (verifier.ts says the same of AUTH_SECRET's).
  const bytes = new TextEncoder().encode(secret);
  let key: Promise<CryptoKey> | undefined;
  const hmacKey = () =>
    (key ??= crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
  const data = (signed: string) => new TextEncoder().encode(CONTEXT + signed);
  return {
    async sign(signed) {
      return base64url.encode(new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(), data(signed))));
    },
    async verify(signed, mac) {
      let given: Uint8Array<ArrayBuffer>;
      try {
        given = new Uint8Array(base64url.decode(mac));
      } catch {
        return false;
      }
      // WebCrypto's verify compares in constant time.
      return crypto.subtle.verify("HMAC", await hmacKey(), given, data(signed));
    },
  };
}
