// js-compute 3.46's WebCrypto has no Ed25519, so an identity provider's EdDSA tokens could not be
// verified on Fastly. This adds Ed25519 public keys to `crypto.subtle` (importKey from a JWK or
// raw bytes, verify) with @noble/ed25519, and only for what the runtime itself refuses: jose then
// verifies EdDSA tokens here exactly as it does on every other runtime.
import { verifyAsync } from "@noble/ed25519";

const PUBLIC_KEY = Symbol("ed25519 public key");

/** A verify-only Ed25519 key, shaped like the CryptoKey jose checks (name, usages, tag). */
interface Ed25519PublicKey {
  readonly [Symbol.toStringTag]: "CryptoKey";
  readonly type: "public";
  readonly algorithm: { name: "Ed25519" };
  readonly extractable: boolean;
  readonly usages: KeyUsage[];
  readonly [PUBLIC_KEY]: Uint8Array;
}

type ImportKey = (...args: Parameters<SubtleCrypto["importKey"]>) => Promise<CryptoKey>;
type Verify = (...args: Parameters<SubtleCrypto["verify"]>) => Promise<boolean>;

export function installEd25519(subtle: SubtleCrypto = crypto.subtle): void {
  const importKey = subtle.importKey.bind(subtle) as ImportKey;
  const verify = subtle.verify.bind(subtle) as Verify;

  const importEd25519: ImportKey = async (format, keyData, algorithm, extractable, usages) => {
    try {
      return await importKey(format, keyData, algorithm, extractable, usages);
    } catch (error) {
      if (!isEd25519(algorithm)) throw error;
      return publicKey(publicKeyBytes(format, keyData), extractable, usages) as unknown as CryptoKey;
    }
  };
  const verifyEd25519: Verify = (algorithm, key, signature, data) => {
    const raw = (key as unknown as Partial<Ed25519PublicKey>)[PUBLIC_KEY];
    if (!raw) return verify(algorithm, key, signature, data);
    if (!isEd25519(algorithm)) return Promise.reject(new TypeError("an Ed25519 key verifies Ed25519 only"));
    return verifyAsync(bytes(signature), bytes(data), raw).catch(() => false);
  };
  Object.defineProperty(subtle, "importKey", { value: importEd25519, configurable: true, writable: true });
  Object.defineProperty(subtle, "verify", { value: verifyEd25519, configurable: true, writable: true });
}

function isEd25519(algorithm: AlgorithmIdentifier | { name: string }): boolean {
  return (typeof algorithm === "string" ? algorithm : algorithm.name) === "Ed25519";
}

function publicKeyBytes(format: KeyFormat, keyData: JsonWebKey | BufferSource): Uint8Array {
  if (format === "raw") return bytes(keyData as BufferSource);
  if (format === "jwk") {
    const jwk = keyData as JsonWebKey;
    if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") {
      throw new TypeError("not an Ed25519 public JWK");
    }
    if (jwk.d !== undefined) throw new TypeError("only Ed25519 public keys are supported");
    return fromBase64Url(jwk.x);
  }
  throw new TypeError(`Ed25519 keys in ${format} format are not supported`);
}

function publicKey(raw: Uint8Array, extractable: boolean, keyUsages: Iterable<KeyUsage>): Ed25519PublicKey {
  const usages = Array.from(keyUsages);
  if (raw.length !== 32) throw new TypeError("an Ed25519 public key is 32 bytes");
  if (usages.some((usage) => usage !== "verify")) throw new TypeError("an Ed25519 public key can only verify");
  return {
    [Symbol.toStringTag]: "CryptoKey",
    type: "public",
    algorithm: { name: "Ed25519" },
    extractable,
    usages,
    [PUBLIC_KEY]: raw,
  };
}

function bytes(source: BufferSource): Uint8Array {
  if (source instanceof Uint8Array) return source;
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return new Uint8Array(source);
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
