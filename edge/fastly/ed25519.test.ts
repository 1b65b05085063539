import { describe, expect, it } from "vitest";
import { installEd25519 } from "./ed25519.ts";

/** A WebCrypto like js-compute's: everything but Ed25519. */
function subtleWithoutEd25519(): SubtleCrypto {
  const real = crypto.subtle;
  const refuses = (algorithm: AlgorithmIdentifier) =>
    (typeof algorithm === "string" ? algorithm : algorithm.name) === "Ed25519";
  return {
    importKey: (...args: Parameters<SubtleCrypto["importKey"]>) =>
      refuses(args[2] as AlgorithmIdentifier)
        ? Promise.reject(new DOMException("Algorithm: Unrecognized name", "NotSupportedError"))
        : real.importKey(...args),
    verify: (...args: Parameters<SubtleCrypto["verify"]>) => real.verify(...args),
  } as unknown as SubtleCrypto;
}

const encoder = new TextEncoder();

async function signedByProvider(message: string) {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const signature = await crypto.subtle.sign({ name: "Ed25519" }, pair.privateKey, encoder.encode(message));
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { jwk, signature, privateJwk: await crypto.subtle.exportKey("jwk", pair.privateKey) };
}

describe("Ed25519 where WebCrypto lacks it", () => {
  it("imports a public JWK and verifies exactly the signed bytes", async () => {
    const subtle = subtleWithoutEd25519();
    installEd25519(subtle);
    const { jwk, signature } = await signedByProvider("header.payload");
    const key = await subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["verify"]);
    expect(key.algorithm.name).toBe("Ed25519");
    expect(Object.prototype.toString.call(key)).toBe("[object CryptoKey]");
    expect(await subtle.verify({ name: "Ed25519" }, key, signature, encoder.encode("header.payload"))).toBe(true);
    expect(await subtle.verify({ name: "Ed25519" }, key, signature, encoder.encode("header.payloaD"))).toBe(false);
    const forged = new Uint8Array(signature);
    forged[0]! ^= 1;
    expect(await subtle.verify({ name: "Ed25519" }, key, forged, encoder.encode("header.payload"))).toBe(false);
  });

  it("refuses private keys, other curves and keys that could sign", async () => {
    const subtle = subtleWithoutEd25519();
    installEd25519(subtle);
    const { jwk, privateJwk } = await signedByProvider("x");
    await expect(subtle.importKey("jwk", privateJwk, { name: "Ed25519" }, false, ["verify"])).rejects.toThrow(/public/);
    await expect(
      subtle.importKey("jwk", { ...jwk, crv: "X25519" }, { name: "Ed25519" }, false, ["verify"]),
    ).rejects.toThrow();
    await expect(subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["sign"])).rejects.toThrow(/verify/);
  });

  it("leaves every other algorithm to the runtime", async () => {
    const subtle = subtleWithoutEd25519();
    installEd25519(subtle);
    const secret = encoder.encode("k".repeat(32));
    const algorithm = { name: "HMAC", hash: "SHA-256" };
    const signer = await crypto.subtle.importKey("raw", secret, algorithm, false, ["sign"]);
    const mac = await crypto.subtle.sign("HMAC", signer, encoder.encode("m"));
    const hmac = await subtle.importKey("raw", secret, algorithm, false, ["verify"]);
    expect(hmac instanceof CryptoKey).toBe(true);
    expect(await subtle.verify("HMAC", hmac, mac, encoder.encode("m"))).toBe(true);
  });
});
