// A stand-in identity provider on a loopback port: its own key pairs (RS256, ES256, EdDSA) and its
// JWKS at a URL, as a real provider serves them. Tokens are signed here with the private keys.
// It can fail (500), hang (never answer) and come back, and rotate a new key in.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { keySetMac } from "../../core/tokens/key-set-mac.ts";
import { keySetKey, storedKeySetText } from "../../core/tokens/stored-key-set.ts";
import type { KvEntries } from "../../dev/launchers/planted-kv.ts";

export const PROVIDER_ALGORITHMS = ["RS256", "ES256", "EdDSA"] as const;
export type ProviderAlgorithm = (typeof PROVIDER_ALGORITHMS)[number];

/** What the service is configured with to trust this provider. */
export const PROVIDER_SETTINGS = {
  AUTH_ISSUER: "https://idp.test/",
  AUTH_AUDIENCE: "edge-api",
  AUTH_TENANT_CLAIM: "https://idp.test/org",
  AUTH_ROLE_CLAIM: "app_role",
};

export interface TokenRequest {
  alg: ProviderAlgorithm;
  sub?: string;
  /** The tenant, put in the provider's tenant claim. */
  org?: string;
  role?: string;
  iss?: string;
  aud?: string;
  /** Extra or overriding claims. */
  claims?: Record<string, unknown>;
  /** Signed with the key `rotate()` publishes (ES256), not the one of `alg`. */
  rotated?: boolean;
  /** Its exp, in seconds since the epoch (default an hour from now). */
  exp?: number;
}

/** `redirecting`: the JWKS URL answers 302 to another path, which serves the key set. */
export type Availability = "up" | "failing" | "hanging" | "redirecting";

export interface IdentityProvider {
  jwksUrl: string;
  /** The public keys, as the JWKS document lists them. */
  publicJwks: JWK[];
  /** `Bearer <token>` signed by this provider's key for `alg`. */
  bearer(request: TokenRequest): Promise<string>;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  /** How many redirects it answered, and how many times one was followed. */
  redirects(): { answered: number; followed: number };
  /** From now on the JWKS answers normally, 500, or never. */
  setAvailability(availability: Availability): void;
  /** Adds the rotated key to the JWKS. */
  rotate(): void;
  close(): Promise<void>;
}

async function keyPair(alg: ProviderAlgorithm, kid: string) {
  const pair = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}) });
  return { alg, privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: "sig" } };
}

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const pairs = await Promise.all(PROVIDER_ALGORITHMS.map((alg) => keyPair(alg, `${alg}-key`)));
  const next = await keyPair("ES256", "ES256-next");
  const publicJwks = pairs.map((pair) => pair.jwk);
  const served = [...publicJwks];
  let fetches = 0;
  const redirects = { answered: 0, followed: 0 };
  let availability: Availability = "up";
  const server = createServer((req, res) => {
    fetches++;
    if (availability === "hanging") return;
    if (req.url === "/moved/jwks.json") {
      redirects.followed++;
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: served }));
    }
    if (availability === "redirecting") {
      redirects.answered++;
      return void res.writeHead(302, { location: "/moved/jwks.json" }).end();
    }
    if (availability === "failing") return void res.writeHead(500).end("down for maintenance");
    if (req.url !== "/.well-known/jwks.json") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    publicJwks,
    bearer: (request) => {
      const pair = request.rotated ? next : pairs.find((candidate) => candidate.alg === request.alg)!;
      return signedBearer(pair, request);
    },
    fetches: () => fetches,
    redirects: () => ({ ...redirects }),
    setAvailability: (wanted) => {
      availability = wanted;
    },
    rotate: () => {
      if (!served.includes(next.jwk)) served.push(next.jwk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A hanging answer's socket would keep close() waiting for ever.
        server.closeAllConnections();
      }),
  };
}

/** `Bearer <token>` signed with `pair`, carrying what `request` asks as this provider puts it. */
async function signedBearer(
  pair: { alg: string; privateKey: CryptoKey; jwk: JWK },
  {
    sub = "alice",
    org = "acme",
    role,
    iss = PROVIDER_SETTINGS.AUTH_ISSUER,
    aud = PROVIDER_SETTINGS.AUTH_AUDIENCE,
    claims = {},
    exp,
  }: TokenRequest,
) {
  const payload = {
    [PROVIDER_SETTINGS.AUTH_TENANT_CLAIM]: org,
    ...(role ? { [PROVIDER_SETTINGS.AUTH_ROLE_CLAIM]: role } : {}),
    // Every token its own text: the server remembers a verified text, and would not look its key up again.
    jti: crypto.randomUUID(),
    ...claims,
  };
  const token = await new SignJWT(payload)
    .setProtectedHeader({ alg: pair.alg, kid: pair.jwk.kid, typ: "JWT" })
    .setSubject(sub)
    .setIssuer(iss)
    .setAudience(aud)
    .setIssuedAt()
    .setExpirationTime(exp ?? "1h")
    .sign(pair.privateKey);
  return `Bearer ${token}`;
}

/**
 * Someone who can write the deployment's KV store but holds none of the provider's keys: its own
 * key set, stored where and as the service stores the provider's (core/tokens/stored-key-set.ts),
 * freshly "fetched", under a kid of its own and under the provider's own ES256 kid.
 */
export type KeySetPlanter = Awaited<ReturnType<typeof keySetPlanter>>;

export async function keySetPlanter(jwksUrl: string) {
  const own = await keyPair("ES256", "planted-key");
  const posing = { ...own, jwk: { ...own.jwk, kid: "ES256-key" } };
  const entry = { url: jwksUrl, fetchedAt: Date.now(), jwks: { keys: [own.jwk, posing.jwk] } };
  return {
    kvEntries: { [await keySetKey(jwksUrl)]: JSON.stringify(entry) } as KvEntries,
    /** A token this key set verifies; `posing`: under the provider's own kid. */
    bearer: (request: TokenRequest & { posing?: boolean }) => signedBearer(request.posing ? posing : own, request),
  };
}

/** The provider's own key set as an earlier instance keeps it, just fetched, signed with `secret` (AUTH_JWKS_KV_SECRET). */
export async function signedKeySetEntries(provider: IdentityProvider, secret: string): Promise<KvEntries> {
  const entry = { url: provider.jwksUrl, fetchedAt: Date.now(), jwks: { keys: provider.publicJwks } };
  return { [await keySetKey(provider.jwksUrl)]: await storedKeySetText(entry, keySetMac(secret)) };
}
