// `npm start` checks the settings it will hand the runtime before it starts anything: a typo in
// DATABASE_URL must not quietly fall back to the embedded database.
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../build/fastly.ts";
import { VICEROY_INSTALL } from "../launchers/viceroy.ts";

const SECRET = "a-development-secret-of-32-bytes-or-more";

function start(env: Record<string, string>, args: string[] = []) {
  const parent = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(AUTH_|DATABASE_URL|NEON_)/.test(name)),
  );
  return spawnSync(join(ROOT, "node_modules", ".bin", "tsx"), [join(ROOT, "dev", "local-stack", "start.ts"), ...args], {
    cwd: ROOT,
    env: { ...parent, PORT: "0", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("npm start with an unusable setting", () => {
  it.each([
    ["DATABASE_URL", { AUTH_SECRET: SECRET, DATABASE_URL: "postgress://app:hunter2-password@127.0.0.1/app" }],
    ["AUTH_SECRET", { AUTH_SECRET: "short-secret-value" }],
    ["AUTH_JWKS", { AUTH_JWKS: "[not a jwks]" }],
    ["AUTH_ISSUER", { AUTH_JWKS_URL: "https://idp.example/.well-known/jwks.json" }],
    [
      "AUTH_SECRET",
      { AUTH_SECRET: SECRET, AUTH_JWKS_URL: "https://idp.example/.well-known/jwks.json", AUTH_ISSUER: "https://idp/" },
    ],
    ["AUTH_CLOCK_LEEWAY_SECONDS", { AUTH_SECRET: SECRET, AUTH_CLOCK_LEEWAY_SECONDS: "3600" }],
    ["LINK_CACHE_TTL_SECONDS", { AUTH_SECRET: SECRET, LINK_CACHE_TTL_SECONDS: "ten" }],
    ["LINK_CACHE_TTL_SECONDS", { AUTH_SECRET: SECRET, LINK_CACHE_TTL_SECONDS: "3000000000" }],
    ["SERVER_TIMING", { AUTH_SECRET: SECRET, SERVER_TIMING: "yes" }],
    ["PORT", { AUTH_SECRET: SECRET, PORT: "abc" }],
    // The runtime's own settings, beside core's: refused as early, not by the runtime once the database runs.
    ["API_DOCS", { AUTH_SECRET: SECRET, API_DOCS: "yes" }],
    ["MAX_CONNECTIONS", { AUTH_SECRET: SECRET, MAX_CONNECTIONS: "0" }],
  ])(
    "refuses a bad %s with one line before starting anything",
    (setting, env) => {
      const result = start(env);
      expect(result.status).toBe(2);
      expect(result.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(new RegExp(`^Misconfigured: ${setting} `)),
      ]);
      expect(result.stdout).not.toMatch(/Database:|listening/);
      for (const value of Object.values(env)) if (value !== SECRET) expect(result.stderr).not.toContain(value);
    },
    60_000,
  );
});

describe("npm start with a port option that is not a whole number in digits", () => {
  it.each([
    ["--port", "0x1F90"],
    ["--port", "8e3"],
    ["--neon-port", " 9001"],
  ])(
    "refuses %s %j with one line, as PORT refuses it, before starting anything",
    (option, value) => {
      const result = start({ AUTH_SECRET: SECRET }, [option, value]);
      expect(result.status).toBe(2);
      expect(result.stderr.trim().split("\n")).toEqual([
        `${option} must be a port number from 0 to 65535, not "${value}"`,
      ]);
      expect(result.stdout).not.toMatch(/Database:|listening/);
    },
    60_000,
  );
});

describe("npm start -- --runtime fastly without Viceroy", () => {
  it("says in one line how to install it, and starts nothing", () => {
    // A PATH without viceroy (node found by its own path) and a home folder without .cargo/bin.
    const result = start({ AUTH_SECRET: SECRET, PATH: dirname(process.execPath), HOME: tmpdir() }, [
      "--runtime",
      "fastly",
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([expect.stringContaining(VICEROY_INSTALL)]);
    expect(result.stdout).not.toMatch(/Database:|listening|AUTH_SECRET/);
  }, 60_000);
});

describe("npm start with more runtimes than ports from --port up", () => {
  it("refuses in one line naming --port / PORT, and starts nothing", () => {
    const result = start({ AUTH_SECRET: SECRET }, ["--runtime", "node,cloudflare", "--port", "65535"]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([
      "--port / PORT: 2 runtimes take ports 65535 to 65536; the last must be at most 65535",
    ]);
    expect(result.stdout).not.toMatch(/Database:|listening/);
  }, 60_000);
});
