import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAuthenticator } from "../../core/tokens/auth.ts";
import { parseAuthSettings } from "../../core/tokens/settings.ts";
import { ROOT } from "../build/fastly.ts";
import { devSecretForStart, devSecretForTokens, mintDevToken } from "./dev-auth.ts";

const SECRET = "a-development-secret-of-32-bytes-or-more";
const JWKS = JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y" }] });

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dev-auth-"));
  path = join(dir, ".data", "dev-auth-secret");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the development secret", () => {
  it("is made once, readable by this user only, and kept for the next start and for tokens", async () => {
    const first = await devSecretForStart({}, path);
    expect(first?.source).toBe("created");
    expect(new TextEncoder().encode(first!.secret).length).toBeGreaterThanOrEqual(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await devSecretForStart({}, path)).toEqual({ secret: first!.secret, source: "file" });
    expect(await devSecretForTokens({}, path)).toBe(first!.secret);
  });

  it("is AUTH_SECRET when that is set, and nothing is written", async () => {
    expect(await devSecretForStart({ AUTH_SECRET: SECRET }, path)).toEqual({ secret: SECRET, source: "AUTH_SECRET" });
    expect(await devSecretForTokens({ AUTH_SECRET: SECRET }, path)).toBe(SECRET);
    await expect(stat(path)).rejects.toThrow();
  });

  it("does not exist with an identity provider configured and no AUTH_SECRET", async () => {
    expect(await devSecretForStart({ AUTH_JWKS: JWKS }, path)).toBeUndefined();
    expect(await devSecretForStart({ AUTH_JWKS_URL: "https://idp.example/jwks" }, path)).toBeUndefined();
    await expect(stat(path)).rejects.toThrow();
  });

  it("is never made by the token command", async () => {
    expect(await devSecretForTokens({}, path)).toBeUndefined();
    await expect(readFile(path)).rejects.toThrow();
  });
});

describe("development tokens", () => {
  it("are accepted by the service with the same secret, claims under the configured names", async () => {
    const env = { AUTH_SECRET: SECRET, AUTH_TENANT_CLAIM: "org", AUTH_ROLE_CLAIM: "app_role" };
    const authenticate = createAuthenticator(parseAuthSettings(env));
    const token = await mintDevToken({ sub: "alice", tid: "acme", role: "admin", ttl: "5m" }, SECRET, env);
    expect(await authenticate(`Bearer ${token}`)).toEqual({ userId: "alice", tenantId: "acme", role: "admin" });
  });
});

describe("npm run token", () => {
  const run = (args: string[], env: Record<string, string> = {}) => {
    const { AUTH_SECRET: _drop, ...parent } = process.env;
    return spawnSync(
      join(ROOT, "node_modules", ".bin", "tsx"),
      [join(ROOT, "dev", "local-stack", "token.ts"), ...args],
      {
        cwd: ROOT,
        env: { ...parent, ...env },
        encoding: "utf8",
      },
    );
  };

  it("--help prints usage and exits 0", () => {
    const result = run(["--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run token -- --sub USER --tid TENANT/);
  });

  it("prints a token the service accepts, and nothing else", async () => {
    const result = run(["--sub", "bob", "--tid", "acme", "--role", "service", "--ttl", "2h"], { AUTH_SECRET: SECRET });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const authenticate = createAuthenticator(parseAuthSettings({ AUTH_SECRET: SECRET }));
    expect(await authenticate(`Bearer ${result.stdout.trim()}`)).toEqual({
      userId: "bob",
      tenantId: "acme",
      role: "service",
    });
  });

  it.each([
    [["--tid", "acme"], /--sub is required/],
    [["--sub", "bob", "--tid", "no spaces"], /--tid is required/],
    [["--sub", "bob", "--tid", "acme", "--role", "root"], /--role must be one of/],
    [["--sub", "bob", "--tid", "acme", "--ttl", "soon"], /--ttl must be a span/],
    [["--sub", "bob", "--tid", "acme", "--bogus"], /Unknown option '--bogus'/],
    [["--sub", "-x", "--tid", "acme"], /^Option '--sub' argument is ambiguous\.[^\n]*'--sub=-XYZ'\.\n\(npm run token/],
  ])("refuses %j with one line and exit 2", (args, message) => {
    const result = run(args, { AUTH_SECRET: SECRET });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe("");
  });
});
