// js-compute's WebCrypto runs OpenSSL inside the wasm, and OpenSSL sets itself up on first use
// (providers, algorithm lookups): work that every fresh instance would pay on its
// first HMAC (the HS256 check of every authenticated request) and SHA-256 (every link key). Used
// once at the top level, which the build snapshots, that work is done in every instance's snapshot.
// The inputs are throwaway: no key, digest or random state of a request is made here.

const THROWAWAY = new TextEncoder().encode("warm-up input: nothing is signed or checked with it");

/** One HMAC-SHA-256 signature and one SHA-256 digest of throwaway bytes; resolves when both are done. */
export async function warmWebCrypto(subtle: SubtleCrypto = crypto.subtle): Promise<void> {
  const key = await subtle.importKey("raw", THROWAWAY, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  const signature = await subtle.sign("HMAC", key, THROWAWAY);
  await subtle.verify("HMAC", key, signature, THROWAWAY);
  await subtle.digest("SHA-256", THROWAWAY);
}
