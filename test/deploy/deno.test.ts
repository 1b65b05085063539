// `deno task start` and `deno task check` as a user runs them right after `npm install`: through
// npm's deno (node_modules/.bin/deno) on a machine without Deno, and through a Deno of their own.
import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DENO_BIN, denoRunArgs, PROJECT_ROOT } from "../../dev/launchers/deno.ts";
import { TEST_AUTH_SETTINGS } from "../../dev/support/tokens.ts";
import { expectGracefulStop, heldEndpoint } from "./graceful-stop.ts";
import { runToExit, startServerProcess } from "./processes.ts";
import { BAD_LISTEN_SETTINGS, expectOneMisconfiguredLine, holdPort, UNIMPORTABLE_JWKS } from "./refusals.ts";

const SETTINGS = {
  ...TEST_AUTH_SETTINGS,
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
  const startTask = (env: Record<string, string>) =>
    startServerProcess(DENO_BIN, ["task", "-q", "start"], env, PROJECT_ROOT);
  const task = (env: Record<string, string>) =>
    runToExit(DENO_BIN, ["task", "-q", "start"], { ...SETTINGS, ...env }, PROJECT_ROOT);

  it("keeps the link cache in the file DENO_KV_PATH names, granted by the task for that path only", async () => {
    const dir = await mkdtemp(join(tmpdir(), "deno-kv-"));
    const kvPath = join(dir, "links.sqlite");
    const env = { ...SETTINGS, DENO_KV_PATH: kvPath, HOST: "127.0.0.1", PORT: "0" };
    const server = await startTask(env);
    try {
      expect((await fetch(`${server.localUrl}/healthz`)).status).toBe(200);
      expect(existsSync(kvPath)).toBe(true);
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  describe("stopping", () => {
    let endpoint: Awaited<ReturnType<typeof heldEndpoint>>;
    beforeAll(async () => {
      endpoint = await heldEndpoint();
    });
    afterAll(() => endpoint?.close());

    // The signal goes to `deno task`, as a container's stop does to its first process.
    it.each(["SIGTERM", "SIGINT"] as const)(
      "`deno task start` on %s stops accepting, finishes the request in flight, then exits 0",
      async (signal) => {
        const env = { ...SETTINGS, ...endpoint.env, HOST: "127.0.0.1", PORT: "0" };
        const server = await startTask(env);
        try {
          await expectGracefulStop(server, endpoint, signal, "deno");
        } finally {
          await server.stop();
        }
      },
      120_000,
    );
  });

  it.each([
    ["AUTH_SECRET", { AUTH_SECRET: "short-secret-value" }],
    ["DATABASE_URL", { DATABASE_URL: "postgress://app:hunter2-password@db.example/app" }],
    ["AUTH_JWKS", { AUTH_SECRET: "", AUTH_JWKS: '{"keys": [oops' }],
    ["AUTH_JWKS", UNIMPORTABLE_JWKS],
    ["NEON_FETCH_ENDPOINT", { DATABASE_URL: "postgres://app:pw@127.0.0.1:5432/app", NEON_FETCH_ENDPOINT: "" }],
    ["DENO_KV_PATH", { DENO_KV_PATH: join(tmpdir(), "no-such-folder-for-kv", "links.sqlite") }],
    ["AUTH_SECRET_SCOPE", { AUTH_SECRET_SCOPE: "" }],
  ])(
    "a bad %s stops it at start: one line naming the setting, no value, no stack trace",
    async (setting, bad) => {
      const exit = await task({ ...bad, HOST: "127.0.0.1", PORT: "0" });
      expectOneMisconfiguredLine(exit, setting, Object.values(bad).filter(Boolean));
    },
    120_000,
  );

  it("a DENO_KV_PATH `deno run` was not granted is named in one line", async () => {
    const args = denoRunArgs(); // no kvPathFlags: the file is not granted
    const env = { ...SETTINGS, DENO_KV_PATH: join(tmpdir(), "links.sqlite"), HOST: "127.0.0.1", PORT: "0" };
    const exit = await runToExit(DENO_BIN, args, env, PROJECT_ROOT);
    expectOneMisconfiguredLine(exit, "DENO_KV_PATH", [env.DENO_KV_PATH]);
    expect(exit.stderr).toMatch(/needs read access/);
  }, 120_000);

  describe("a HOST or PORT it cannot listen on", () => {
    let held: Awaited<ReturnType<typeof holdPort>>;
    beforeAll(async () => {
      held = await holdPort();
    });
    afterAll(() => held?.release());

    it.each(BAD_LISTEN_SETTINGS)(
      "%s %# stops it at start with one line naming it",
      async (setting, bad) => {
        const env = bad(held.port);
        expectOneMisconfiguredLine(await task(env), setting, [env.HOST!]);
      },
      120_000,
    );
  });
});
