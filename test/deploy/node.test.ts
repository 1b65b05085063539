// The Node release as deployed: the built server and migrator run by plain `node` from a folder
// holding only them, the migrations and the production dependencies (`npm ci --omit=dev --omit=optional --no-workspaces`), as
// the guide's image does; configured only through the environment.
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../dev/build/fastly.ts";
import { buildNodeRelease, type NodeRelease } from "../../dev/build/node.ts";
import {
  diskMegabytes,
  installedPackages,
  installProductionDependencies,
  isTracingSdk,
} from "../../dev/build/production-install.ts";
import { startLocalStack } from "../../dev/local-stack/stack.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { TEST_AUTH_SECRET, TEST_AUTH_SETTINGS } from "../../dev/support/tokens.ts";
import { expectGracefulStop, heldEndpoint } from "./graceful-stop.ts";
import { runToExit, startServerProcess } from "./processes.ts";
import { BAD_LISTEN_SETTINGS, expectOneMisconfiguredLine, holdPort } from "./refusals.ts";
import { expectNoResetOnStop } from "./stop-under-load.ts";

let releaseDir: string;
let release: NodeRelease;
let bundle: string;

beforeAll(async () => {
  releaseDir = await mkdtemp(join(tmpdir(), "node-release-"));
  release = await buildNodeRelease(join(releaseDir, "dist", "node"));
  bundle = release.server;
  await installProductionDependencies(releaseDir, { copyManifest: true });
}, 120_000);
afterAll(async () => {
  if (releaseDir) await rm(releaseDir, { recursive: true, force: true });
});

describe("the production install beside the release", () => {
  it("holds at most 25 packages and 20 MB besides the OpenTelemetry SDK, no optional peer the service does not import", async () => {
    const nodeModules = join(releaseDir, "node_modules");
    const packages = await installedPackages(nodeModules);
    const own = packages.filter((name) => !isTracingSdk(name));
    const tracingMegabytes = await diskMegabytes(join(nodeModules, "@opentelemetry"));
    const ownMegabytes = (await diskMegabytes(nodeModules)) - tracingMegabytes;
    const figures = `production install: ${own.length} packages, ${ownMegabytes} MB; the OpenTelemetry SDK: ${packages.length - own.length} packages, ${tracingMegabytes} MB`;
    console.log(figures);
    expect(packages).toContain("postgres");
    expect(packages).not.toContain("typescript");
    expect(own.length, figures).toBeLessThanOrEqual(25);
    expect(ownMegabytes, figures).toBeLessThanOrEqual(20);
  });
});

describe("node dist/node/index.js", () => {
  let endpoint: Awaited<ReturnType<typeof heldEndpoint>>;
  beforeAll(async () => {
    endpoint = await heldEndpoint();
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "on %s stops accepting, finishes the request in flight, then exits 0",
    async (signal) => {
      const server = await startServerProcess("node", [bundle], {
        ...TEST_AUTH_SETTINGS,
        ...endpoint.env,
        HOST: "127.0.0.1",
        PORT: "0",
      });
      try {
        await expectGracefulStop(server, endpoint, signal, "node");
      } finally {
        await server.stop();
      }
    },
  );

  it("answers every request that reached it across ten stops under keyed creates on kept-alive connections", async () => {
    const stack = await startLocalStack();
    try {
      await expectNoResetOnStop(async (round) => {
        const server = await startServerProcess("node", [bundle], {
          ...TEST_AUTH_SETTINGS,
          ...stack.settings,
          HOST: "127.0.0.1",
          PORT: "0",
        });
        return {
          url: server.localUrl,
          stop: async () => {
            server.child.kill(round % 2 === 0 ? "SIGTERM" : "SIGINT");
            try {
              return await server.exited;
            } finally {
              await server.stop();
            }
          },
        };
      });
    } finally {
      await stack.close();
    }
  }, 600_000);

  it.each([
    ["AUTH_SECRET", { AUTH_SECRET: "short-secret-value" }],
    ["DATABASE_URL", { ...TEST_AUTH_SETTINGS, DATABASE_URL: "postgress://app:hunter2-password@db.example/app" }],
    ["AUTH_JWKS", { AUTH_JWKS: '{"keys": [oops' }],
    // A database that is not Neon's has no endpoint to guess: it needs one named.
    [
      "NEON_FETCH_ENDPOINT",
      { ...TEST_AUTH_SETTINGS, DATABASE_URL: "postgres://app:pw@127.0.0.1:5432/app", NEON_FETCH_ENDPOINT: "" },
    ],
    ["AUTH_TENANT_CLAIM", { ...TEST_AUTH_SETTINGS, AUTH_TENANT_CLAIM: "exp" }],
    ["PORT", { ...TEST_AUTH_SETTINGS, PORT: "eighty" }],
    ["MAX_CONNECTIONS", { ...TEST_AUTH_SETTINGS, MAX_CONNECTIONS: "lots" }],
    ["LINK_MAX_PER_USER", { ...TEST_AUTH_SETTINGS, LINK_MAX_PER_USER: "none" }],
    // The development key alone is no deployment; deployed on purpose, a published secret is refused.
    ["AUTH_SECRET_SCOPE", { AUTH_SECRET: TEST_AUTH_SECRET }],
    [
      "AUTH_SECRET",
      {
        AUTH_SECRET: TEST_AUTH_SECRET,
        AUTH_SECRET_SCOPE: "deployment",
        AUTH_ISSUER: "https://api.example/",
        AUTH_AUDIENCE: "edge-api",
      },
    ],
  ])("a bad %s stops it at start: one line naming the setting, no value, no stack trace", async (setting, env) => {
    const exit = await runToExit("node", [bundle], { ...endpoint.env, ...env });
    // The development key is a secret too: never printed.
    expectOneMisconfiguredLine(exit, setting, [
      TEST_AUTH_SECRET,
      ...Object.values(env).filter((value) => value !== "local"),
    ]);
    expect(exit.stdout).toBe("");
  });

  describe("a HOST or PORT it cannot listen on", () => {
    let held: Awaited<ReturnType<typeof holdPort>>;
    beforeAll(async () => {
      held = await holdPort();
    });
    afterAll(() => held?.release());

    it.each(BAD_LISTEN_SETTINGS)("%s %# stops it at start with one line naming it", async (setting, bad) => {
      const env = bad(held.port);
      const exit = await runToExit("node", [bundle], { ...TEST_AUTH_SETTINGS, ...endpoint.env, ...env });
      expectOneMisconfiguredLine(exit, setting, [env.HOST!]);
    });
  });

  it("API_DOCS=on serves /docs and Scalar's bundle copied beside the server, with no Scalar package installed", async () => {
    expect(existsSync(join(releaseDir, "node_modules", "@scalar"))).toBe(false);
    const server = await startServerProcess("node", [bundle], {
      ...TEST_AUTH_SETTINGS,
      ...endpoint.env,
      HOST: "127.0.0.1",
      PORT: "0",
      API_DOCS: "on",
    });
    try {
      expect((await fetch(`${server.localUrl}/docs`)).status).toBe(200);
      const script = await fetch(`${server.localUrl}/docs/scalar.js`);
      expect(script.status).toBe(200);
      expect(await script.text()).toContain("createApiReference");
    } finally {
      await server.stop();
    }
  });

  it.each(["server", "migrate"] as const)("the %s imports nothing but the package's runtime dependencies", (file) => {
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const source = readFileSync(release[file], "utf8");
    const imported = [...source.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!);
    const packages = new Set(
      imported
        .filter((name) => !name.startsWith("node:"))
        .map((name) =>
          name
            .split("/")
            .slice(0, name.startsWith("@") ? 2 : 1)
            .join("/"),
        ),
    );
    expect(packages.size).toBeGreaterThan(0);
    for (const name of packages) expect(Object.keys(dependencies)).toContain(name);
  });
});

describeWithPostgres("node dist/node/migrate.js", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const migrate = (env: Record<string, string>) => runToExit("node", [release.migrate], env, releaseDir);

  it("applies sql/ to a plain PostgreSQL URL with production dependencies only, then nothing twice", async () => {
    const first = await migrate({ DATABASE_URL: database.url });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("applied 0001_links.sql");
    expect(first.stderr).toBe("");
    const again = await migrate({ DATABASE_URL: database.url });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("Nothing to apply");
  });

  it.each([
    ["require", /^Migration failed: .*TLS/],
    ["allow", /^Migration failed: sslmode=allow is not supported/],
  ])("with sslmode=%s against a server without TLS: one line, no password", async (mode, line) => {
    const url = new URL(database.url);
    url.password = "hunter2-password";
    url.searchParams.set("sslmode", mode);
    const exit = await migrate({ DATABASE_URL: url.toString() });
    expect(exit.code).toBe(1);
    expect(exit.stderr.trim().split("\n")).toEqual([expect.stringMatching(line)]);
    expect(exit.stderr).not.toContain("hunter2-password");
  });

  it("without sslmode to a host other than this machine: one line, no password, nothing opened", async () => {
    const exit = await migrate({ DATABASE_URL: "postgres://app:hunter2-password@db.internal:5432/app" });
    expect(exit.code).toBe(1);
    expect(exit.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^Migration failed: DATABASE_URL reaches db\.internal without TLS: add sslmode=require/),
    ]);
    expect(exit.stderr).not.toContain("hunter2-password");
  });

  it("without DATABASE_URL refuses in one line, opening nothing", async () => {
    expectOneMisconfiguredLine(await migrate({}), "DATABASE_URL", []);
  });
});
