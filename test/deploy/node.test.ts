// The Node production entry as deployed: the built bundle run by plain `node`, configured only
// through its environment.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../dev/build/fastly.ts";
import { buildNodeServer } from "../../dev/build/node.ts";
import { TEST_AUTH_SECRET } from "../support/tokens.ts";
import { expectGracefulStop, heldEndpoint } from "./graceful-stop.ts";
import { runToExit, startServerProcess } from "./processes.ts";
import { BAD_LISTEN_SETTINGS, expectOneMisconfiguredLine, holdPort } from "./refusals.ts";

let bundle: string;

beforeAll(async () => {
  bundle = await buildNodeServer(join(ROOT, "dist", "node-test", `${process.pid}.js`));
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
        AUTH_SECRET: TEST_AUTH_SECRET,
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

  it.each([
    ["AUTH_SECRET", { AUTH_SECRET: "short-secret-value" }],
    [
      "DATABASE_URL",
      { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: "postgress://app:hunter2-password@db.example/app" },
    ],
    ["AUTH_JWKS", { AUTH_JWKS: '{"keys": [oops' }],
    ["AUTH_TENANT_CLAIM", { AUTH_SECRET: TEST_AUTH_SECRET, AUTH_TENANT_CLAIM: "exp" }],
  ])("a bad %s stops it at start: one line naming the setting, no value, no stack trace", async (setting, env) => {
    const exit = await runToExit("node", [bundle], { ...endpoint.env, ...env });
    expectOneMisconfiguredLine(
      exit,
      setting,
      Object.values(env).filter((value) => value !== TEST_AUTH_SECRET),
    );
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
      const exit = await runToExit("node", [bundle], { AUTH_SECRET: TEST_AUTH_SECRET, ...endpoint.env, ...env });
      expectOneMisconfiguredLine(exit, setting, [env.HOST!]);
    });
  });

  it("imports nothing but the package's runtime dependencies", () => {
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const imported = [...readFileSync(bundle, "utf8").matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!);
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
