// The development sign-in shared by `npm start` and `npm run token`: one HS256 secret, kept in
// .data/dev-auth-secret (made on first use, readable by this user only) unless AUTH_SECRET is set,
// so tokens minted by either keep working across restarts. With an identity provider configured
// (AUTH_JWKS / AUTH_JWKS_URL) and no AUTH_SECRET, there is no development secret at all.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { SignJWT } from "jose";
import type * as v from "valibot";
import { misconfiguredLine } from "../../core/settings/misconfigured.ts";
import { parseGroup } from "../../core/settings/schema.ts";
import { parseSettings, type RawSettings, SettingsError } from "../../core/settings/settings.ts";
import { DEFAULT_ROLE_CLAIM, DEFAULT_TENANT_CLAIM } from "../../core/tokens/settings.ts";

const DEV_SECRET_PATH = fileURLToPath(new URL("../../.data/dev-auth-secret", import.meta.url));

interface DevSecret {
  secret: string;
  /** Where it came from, for the start-up message (never the secret itself). */
  source: "AUTH_SECRET" | "created" | "file";
}

const usesIdentityProvider = (env: RawSettings) => !!(env.AUTH_JWKS || env.AUTH_JWKS_URL);

/** The secret `npm start` runs with: AUTH_SECRET, else the kept one (made now if missing); none with a JWKS. */
export async function devSecretForStart(env: RawSettings, path = DEV_SECRET_PATH): Promise<DevSecret | undefined> {
  if (env.AUTH_SECRET) return { secret: env.AUTH_SECRET, source: "AUTH_SECRET" };
  if (usesIdentityProvider(env)) return undefined;
  const kept = await readKeptSecret(path);
  if (kept) return { secret: kept, source: "file" };
  const secret = randomBytes(32).toString("base64url");
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  return { secret, source: "created" };
}

/** The secret `npm run token` signs with: AUTH_SECRET, else the kept one; never makes a new one. */
export async function devSecretForTokens(env: RawSettings, path = DEV_SECRET_PATH): Promise<string | undefined> {
  return env.AUTH_SECRET || (await readKeptSecret(path));
}

async function readKeptSecret(path: string): Promise<string | undefined> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.trim() || undefined;
}

interface DevTokenRequest {
  sub: string;
  tid: string;
  role?: string;
  /** jose's span syntax: "1h", "30m", "2 days"… */
  ttl?: string;
}

/** An HS256 token the local server accepts; the tenant and role go in the claims the settings name. */
export function mintDevToken(
  { sub, tid, role, ttl = "1h" }: DevTokenRequest,
  secret: string,
  env: RawSettings = {},
): Promise<string> {
  const claims = {
    [env.AUTH_TENANT_CLAIM || DEFAULT_TENANT_CLAIM]: tid,
    ...(role ? { [env.AUTH_ROLE_CLAIM || DEFAULT_ROLE_CLAIM]: role } : {}),
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(ttl)
    .sign(new TextEncoder().encode(secret));
}

/**
 * Settings `npm start` hands the runtime, core's and the runtime's own (`runtimeGroups`), are
 * checked before anything starts: one line, exit 2.
 */
export function refuseUnusableSettings(
  env: RawSettings,
  devSecret: DevSecret | undefined,
  runtimeGroups: readonly v.GenericSchema[] = [],
): void {
  try {
    parseSettings({ ...env, AUTH_SECRET: devSecret?.secret });
    for (const group of runtimeGroups) parseGroup(group, env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(misconfiguredLine(error));
    process.exit(2);
  }
}
