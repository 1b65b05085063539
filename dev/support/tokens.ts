import { SignJWT } from "jose";
import type { Role } from "../../core/tokens/auth.ts";

export const TEST_AUTH_SECRET = "test-secret-that-is-at-least-32-bytes-long!";

/**
 * The settings a runtime started here signs in with: the test secret, on this machine only (a
 * deployment refuses AUTH_SECRET without AUTH_SECRET_SCOPE; dev/launchers add it themselves).
 */
export const TEST_AUTH_SETTINGS = { AUTH_SECRET: TEST_AUTH_SECRET, AUTH_SECRET_SCOPE: "local" } as const;

export interface TokenClaims {
  sub?: string;
  tid?: string;
  role?: Role;
  expiresIn?: string | number;
}

/** A signed HS256 token for tests; defaults to user "alice" of tenant "acme". */
export async function signToken(claims: TokenClaims = {}, secret = TEST_AUTH_SECRET): Promise<string> {
  const { sub = "alice", tid = "acme", role, expiresIn = "1h" } = claims;
  const jwt = new SignJWT({ tid, ...(role ? { role } : {}) })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(expiresIn);
  return jwt.sign(new TextEncoder().encode(secret));
}

export async function bearer(claims: TokenClaims = {}, secret?: string): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await signToken(claims, secret)}` };
}
