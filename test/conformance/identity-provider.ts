// A stand-in identity provider on a loopback port: its own key pairs (RS256, ES256, EdDSA) and its
// JWKS at a URL, as a real provider serves them. Tokens are signed here with the private keys.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

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
}

export interface IdentityProvider {
  jwksUrl: string;
  /** The public keys, as the JWKS document lists them. */
  publicJwks: JWK[];
  /** `Bearer <token>` signed by this provider's key for `alg`. */
  bearer(request: TokenRequest): Promise<string>;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  close(): Promise<void>;
}

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const pairs = await Promise.all(
    PROVIDER_ALGORITHMS.map(async (alg) => {
      const pair = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}) });
      return {
        alg,
        privateKey: pair.privateKey,
        jwk: { ...(await exportJWK(pair.publicKey)), kid: `${alg}-key`, alg, use: "sig" },
      };
    }),
  );
  const publicJwks = pairs.map((pair) => pair.jwk);
  let fetches = 0;
  const server = createServer((req, res) => {
    fetches++;
    if (req.url !== "/.well-known/jwks.json") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: publicJwks }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    publicJwks,
    async bearer({
      alg,
      sub = "alice",
      org = "acme",
      role,
      iss = PROVIDER_SETTINGS.AUTH_ISSUER,
      aud = PROVIDER_SETTINGS.AUTH_AUDIENCE,
      claims = {},
    }) {
      const pair = pairs.find((candidate) => candidate.alg === alg)!;
      const payload = {
        [PROVIDER_SETTINGS.AUTH_TENANT_CLAIM]: org,
        ...(role ? { [PROVIDER_SETTINGS.AUTH_ROLE_CLAIM]: role } : {}),
        ...claims,
      };
      const token = await new SignJWT(payload)
        .setProtectedHeader({ alg, kid: pair.jwk.kid, typ: "JWT" })
        .setSubject(sub)
        .setIssuer(iss)
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(pair.privateKey);
      return `Bearer ${token}`;
    },
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
