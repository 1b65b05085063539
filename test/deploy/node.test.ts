// The Node release as deployed: the built server and migrator run by plain `node` from a folder
// holding only them, the migrations and the production dependencies (`npm ci --omit=dev --omit=optional --no-workspaces`), as
// the guide's image does; configured only through the environment.
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../dev/build/fastly.ts";
import { buildNodeRelease, type NodeRelease } from "../../dev/build/node.ts";
import { diskMegabytes, installedPackages, installProductionDependencies } from "../../dev/build/production-install.ts";
import { startLocalStack } from "../../dev/local-stack/stack.ts";
import {
  COLLECTOR_MISSING,
  collectorInstalled,
  SPAN_KIND_SERVER,
  startCollector,
} from "../../dev/support/collector.ts";
import { dependenciesOf, packageOf } from "../../dev/support/packages.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { describeNeeding } from "../../dev/support/required-tool.ts";
import { TEST_AUTH_SECRET, TEST_AUTH_SETTINGS } from "../../dev/support/tokens.ts";
import { TRACING_INSTALL_COMMAND } from "../../edge/telemetry/load.ts";
import { expectGracefulStop, heldEndpoint } from "./graceful-stop.ts";
import { runToExit, startServerProcess } from "./processes.ts";
import { BAD_LISTEN_SETTINGS, expectOneMisconfiguredLine, holdPort, UNIMPORTABLE_JWKS } from "./refusals.ts";
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
  it("holds at most 25 packages and 20 MB, of OpenTelemetry its API alone, no optional peer the service does not import", async () => {
    const nodeModules = join(releaseDir, "node_modules");
    const packages = await installedPackages(nodeModules);
    const megabytes = await diskMegabytes(nodeModules);
    const figures = `production install: ${packages.length} packages, ${megabytes} MB`;
    console.log(figures);
    expect(packages).toContain("postgres");
    expect(packages).not.toContain("typescript");
    expect(packages.filter((name) => name.startsWith("@opentelemetry/"))).toEqual(["@opentelemetry/api"]);
    expect(packages.length, figures).toBeLessThanOrEqual(25);
    expect(megabytes, figures).toBeLessThanOrEqual(20);
  });
});

describeNeeding(
  "the OpenTelemetry Collector",
  collectorInstalled() ? undefined : COLLECTOR_MISSING,
  "the release beside the tracing install",
  () => {
    let tracingDir: string;
    beforeAll(async () => {
      tracingDir = await mkdtemp(join(tmpdir(), "node-release-traced-"));
      await cp(join(releaseDir, "dist"), join(tracingDir, "dist"), { recursive: true });
      await installProductionDependencies(tracingDir, { copyManifest: true, tracing: true });
    }, 120_000);
    afterAll(async () => {
      if (tracingDir) await rm(tracingDir, { recursive: true, force: true });
    });

    it("holds the SDK, and exports each request's server span to the collector", async () => {
      expect(await installedPackages(join(tracingDir, "node_modules"))).toContain("@opentelemetry/sdk-trace");
      const collector = await startCollector();
      const server = await startServerProcess("node", [join(tracingDir, "dist", "node", "index.js")], {
        ...TEST_AUTH_SETTINGS,
        DATABASE_URL: "postgres://app:pw@127.0.0.1:9/app",
        NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
        HOST: "127.0.0.1",
        PORT: "0",
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        OTEL_SERVICE_NAME: "release",
      });
      try {
        expect((await fetch(`${server.localUrl}/healthz`)).status).toBe(200);
        // Node's exporter sends a batch within a second of its first span.
        await expect
          .poll(() => collector.spans().filter((span) => span.kind === SPAN_KIND_SERVER), { timeout: 15_000 })
          .toEqual([
            expect.objectContaining({
              name: "GET /healthz",
              resource: expect.objectContaining({ "service.name": "release", "edge.runtime": "node" }),
            }),
          ]);
      } finally {
        await server.stop();
        await collector.stop();
      }
    }, 60_000);
  },
);

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
    ["AUTH_JWKS", UNIMPORTABLE_JWKS],
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

  it("asked for traces without the SDK installed, stops at start with one line naming the endpoint and the install", async () => {
    const exit = await runToExit("node", [bundle], {
      ...TEST_AUTH_SETTINGS,
      ...endpoint.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
    });
    expectOneMisconfiguredLine(exit, "OTEL_EXPORTER_OTLP_ENDPOINT", [TEST_AUTH_SECRET]);
    expect(exit.stderr).toContain(TRACING_INSTALL_COMMAND);
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

  it("imports nothing but the package's runtime dependencies; the tracing SDK only from the module that traces", async () => {
    const runtime = dependenciesOf(join(ROOT, "package.json"));
    const tracing = dependenciesOf(join(ROOT, "edge", "telemetry", "package.json"));
    const dist = join(releaseDir, "dist", "node");
    const files = (await readdir(dist, { recursive: true })).filter((file) => file.endsWith(".js"));
    expect(files).toEqual(expect.arrayContaining(["index.js", "migrate.js"]));
    const tracingModules = files.filter((file) => /^chunks\/telemetry-/.test(file));
    expect(tracingModules).toHaveLength(1);
    for (const file of files) {
      const source = readFileSync(join(dist, file), "utf8");
      // One line or several: `import {\n  a,\n  b\n} from "x";`.
      const imported = [...source.matchAll(/^import (?:[^;"]* from )?"([^"]+)";$/gm)].map((m) => m[1]!);
      const packages = imported.filter((name) => !name.startsWith("node:") && !name.startsWith(".")).map(packageOf);
      const allowed = tracingModules.includes(file) ? [...runtime, ...tracing] : runtime;
      for (const name of packages) expect(allowed, `${file} imports ${name}`).toContain(name);
      if (file === "index.js") expect(packages).toContain("hono");
      if (tracingModules.includes(file)) expect(packages).toContain("@opentelemetry/sdk-trace");
    }
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
