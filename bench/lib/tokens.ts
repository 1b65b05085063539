// How the bench signs in: HS256 tokens for the runtimes it starts, tokens minted from a private
// key for deployments that trust a JWKS, or tokens given as they are (one identity for the run).
import { createPrivateKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import { importPKCS8, SignJWT } from "jose";
import type { Role } from "../../core/tokens/auth.ts";
import { signToken } from "../../dev/support/tokens.ts";
import { UsageError } from "./cli.ts";

export interface BenchClaims {
  sub: string;
  tid: string;
  role?: Role;
}

export interface TokenSource {
  token(claims: BenchClaims): Promise<string>;
  /**
   * Given tokens carry one user and one tenant, whatever is asked for: the operations that need
   * many users (a new link per request) cannot run, and the tenant is the token's.
   */
  oneIdentity: boolean;
  describe: string;
}

/** The options that sign in to deployments (--target); the runtimes the bench starts take its own tokens. */
export const SIGN_IN_OPTIONS = [
  "--token",
  "--admin-token",
  "--sign-with",
  "--kid",
  "--iss",
  "--aud",
  "--tenant-claim",
  "--role-claim",
];

/** The lifetime of every minted token: far longer than a bounded run, short if one leaks. */
const TOKEN_LIFETIME = "1h";

export function secretTokens(secret: string): TokenSource {
  return {
    token: (claims) => signToken({ ...claims, expiresIn: TOKEN_LIFETIME }, secret),
    oneIdentity: false,
    describe: "HS256 tokens for the runtimes' own AUTH_SECRET",
  };
}

export interface SigningOptions {
  keyFile: string;
  kid?: string;
  issuer?: string;
  audience?: string;
  tenantClaim: string;
  roleClaim: string;
}

/** The JWS algorithm the deployments accept for this kind of key (core/tokens/verifier.ts). */
function algorithmFor(pem: string, keyFile: string): string {
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new UsageError(`--sign-with ${keyFile}: not a PEM private key`);
  }
  const type = key.asymmetricKeyType;
  if (type === "rsa") return "RS256";
  if (type === "ed25519") return "EdDSA";
  if (type === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") return "ES256";
  throw new UsageError(`--sign-with ${keyFile}: an RSA, P-256 or Ed25519 key is needed (RS256, ES256, EdDSA)`);
}

/** Tokens signed with a private key whose public half is in the deployments' JWKS. */
export async function keyTokens(options: SigningOptions): Promise<TokenSource> {
  const pem = await readFile(options.keyFile, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--sign-with ${options.keyFile}: ${error.code ?? error.message}`);
  });
  const alg = algorithmFor(pem, options.keyFile);
  // PKCS #8 is what jose imports; a PKCS #1 or SEC 1 file is converted first.
  const pkcs8 = createPrivateKey(pem).export({ type: "pkcs8", format: "pem" }).toString();
  const key = await importPKCS8(pkcs8, alg);
  return {
    async token({ sub, tid, role }) {
      const jwt = new SignJWT({ [options.tenantClaim]: tid, ...(role ? { [options.roleClaim]: role } : {}) })
        .setProtectedHeader({ alg, typ: "JWT", ...(options.kid ? { kid: options.kid } : {}) })
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime(TOKEN_LIFETIME);
      if (options.issuer) jwt.setIssuer(options.issuer);
      if (options.audience) jwt.setAudience(options.audience);
      return jwt.sign(key);
    },
    oneIdentity: false,
    describe: `${alg} tokens minted from ${options.keyFile}${options.kid ? ` (kid ${options.kid})` : ""}`,
  };
}

/** The tokens as given: one for everything, the admin one for admin operations. */
export function givenTokens(token: string, adminToken: string | undefined): TokenSource {
  return {
    async token({ role }) {
      if (role !== "admin") return token;
      if (!adminToken) throw new Error("an admin operation needs --admin-token (or BENCH_ADMIN_TOKEN)");
      return adminToken;
    },
    oneIdentity: true,
    describe: `the given token${adminToken ? " and admin token" : ""}`,
  };
}
