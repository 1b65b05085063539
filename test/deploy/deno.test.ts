// `deno task start` and `deno task check` as a user runs them right after `npm install`: through
// npm's deno (node_modules/.bin/deno) on a machine without Deno, and through a Deno of their own.
import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DENO_BIN, PROJECT_ROOT } from "../../dev/launchers/deno.ts";
import { TEST_AUTH_SECRET } from "../support/tokens.ts";
import { runToExit, startServerProcess } from "./processes.ts";

const SETTINGS = {
  AUTH_SECRET: TEST_AUTH_SECRET,
  DATABASE_URL: "postgres://app:pw@127.0.0.1:9/app",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
  DENO_KV_PATH: ":memory:",
};

/** PATH with no directory that holds a `deno`: the machine has no Deno of its own. */
const pathWithoutDeno = () =>
  (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir && !existsSync(join(dir, "deno")))
    .join(delimiter);

let systemDenoDir: string;

beforeAll(async () => {
  // A Deno installed apart from the project (the same binary, reached by PATH, not node_modules).
  systemDenoDir = await mkdtemp(join(tmpdir(), "system-deno-"));
  await symlink(realpathSync(DENO_BIN), join(systemDenoDir, "deno"));
});
afterAll(async () => {
  await rm(systemDenoDir, { recursive: true, force: true });
});

const ways = [
  { name: "npm's deno, no Deno on PATH", command: () => DENO_BIN, path: () => pathWithoutDeno() },
  { name: "a Deno on PATH", command: () => "deno", path: () => `${systemDenoDir}${delimiter}${pathWithoutDeno()}` },
];

describe.each(ways)("deno task, with $name", ({ command, path }) => {
  it("`deno task check` type-checks the entry", async () => {
    const exit = await runToExit(command(), ["task", "check"], { PATH: path() }, PROJECT_ROOT);
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(/Check .*edge\/deno\/index\.ts/);
  }, 120_000);

  it("`deno task start` serves /healthz on HOST:PORT", async () => {
    const env = { ...SETTINGS, PATH: path(), HOST: "127.0.0.1", PORT: "0" };
    const server = await startServerProcess(command(), ["task", "start"], env, PROJECT_ROOT);
    try {
      expect(new URL(server.url).hostname).toBe("127.0.0.1");
      expect(await (await fetch(`${server.localUrl}/healthz`)).json()).toEqual({ status: "ok", runtime: "deno" });
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe("the Deno entry", () => {
  it("listens on every interface when HOST is not set", async () => {
    const server = await startServerProcess(
      DENO_BIN,
      ["task", "-q", "start"],
      { ...SETTINGS, PORT: "0" },
      PROJECT_ROOT,
    );
    try {
      expect(new URL(server.url).hostname).toBe("0.0.0.0");
      expect((await fetch(`${server.localUrl}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it.each([
    ["AUTH_SECRET", { AUTH_SECRET: "short-secret-value" }],
    ["DATABASE_URL", { DATABASE_URL: "postgress://app:hunter2-password@db.example/app" }],
    ["AUTH_JWKS", { AUTH_SECRET: "", AUTH_JWKS: '{"keys": [oops' }],
    ["NEON_FETCH_ENDPOINT", { DATABASE_URL: "postgres://app:pw@127.0.0.1:5432/app", NEON_FETCH_ENDPOINT: "" }],
  ])(
    "a bad %s stops it at start: one line naming the setting, no value, no stack trace",
    async (setting, bad) => {
      const exit = await runToExit(DENO_BIN, ["task", "-q", "start"], { ...SETTINGS, ...bad, PORT: "0" }, PROJECT_ROOT);
      expect(exit.code).toBe(1);
      expect(exit.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(new RegExp(`^Misconfigured: ${setting} `)),
      ]);
      for (const value of Object.values(bad)) if (value) expect(exit.stderr).not.toContain(value);
    },
    120_000,
  );
});
