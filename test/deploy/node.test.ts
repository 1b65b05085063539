// The Node production entry as deployed: the built bundle run by plain `node`, configured only
// through its environment.
import { readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../dev/build/fastly.ts";
import { buildNodeServer } from "../../dev/build/node.ts";
import { TEST_AUTH_SECRET } from "../support/tokens.ts";
import { runToExit, startServerProcess } from "./processes.ts";

let bundle: string;

beforeAll(async () => {
  bundle = await buildNodeServer(join(ROOT, "dist", "node-test", `${process.pid}.js`));
});

/** A Neon endpoint that holds every query until released, then answers `SELECT 1 AS ok`. */
async function heldEndpoint() {
  const held: ServerResponse[] = [];
  let arrived: () => void = () => {};
  const firstArrival = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      held.push(res);
      arrived();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const answer = JSON.stringify({
    fields: [
      { name: "ok", dataTypeID: 23, tableID: 0, columnID: 0, dataTypeSize: 4, dataTypeModifier: -1, format: "text" },
    ],
    rows: [["1"]],
    command: "SELECT",
    rowCount: 1,
    rowAsArray: true,
  });
  return {
    env: {
      DATABASE_URL: `postgres://app:pw@127.0.0.1:${port}/app`,
      NEON_FETCH_ENDPOINT: `http://127.0.0.1:${port}/sql`,
    },
    firstArrival,
    release: () => {
      for (const res of held.splice(0)) res.writeHead(200, { "content-type": "application/json" }).end(answer);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("node dist/node/index.js", () => {
  let endpoint: Awaited<ReturnType<typeof heldEndpoint>>;
  beforeAll(async () => {
    endpoint = await heldEndpoint();
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  it("on SIGTERM stops accepting, finishes the request in flight, then exits 0", async () => {
    const server = await startServerProcess("node", [bundle], {
      AUTH_SECRET: TEST_AUTH_SECRET,
      ...endpoint.env,
      HOST: "127.0.0.1",
      PORT: "0",
    });
    try {
      const inFlight = fetch(`${server.localUrl}/readyz`);
      await endpoint.firstArrival;
      server.child.kill("SIGTERM");
      // The listening socket closes at once; the request waiting on the database is still open.
      // (`connection: close`: a kept-alive socket from an earlier poll is not a new connection.)
      const probe = () => fetch(`${server.localUrl}/healthz`, { headers: { connection: "close" } });
      await expect
        .poll(() =>
          probe().then(
            () => "accepted",
            () => "refused",
          ),
        )
        .toBe("refused");
      endpoint.release();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "ready", runtime: "node" });
      expect(await server.exited).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it("listens on every interface unless HOST says otherwise, on PORT", async () => {
    const server = await startServerProcess("node", [bundle], {
      AUTH_SECRET: TEST_AUTH_SECRET,
      ...endpoint.env,
      PORT: "0",
    });
    try {
      expect(new URL(server.url).hostname).toBe("0.0.0.0");
      expect(await (await fetch(`${server.localUrl}/healthz`)).json()).toEqual({ status: "ok", runtime: "node" });
    } finally {
      await server.stop();
    }
  });

  it.each([
    ["AUTH_SECRET", { AUTH_SECRET: "short-secret-value" }],
    [
      "DATABASE_URL",
      { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: "postgress://app:hunter2-password@db.example/app" },
    ],
    ["AUTH_JWKS", { AUTH_JWKS: '{"keys": [oops' }],
    // A database that is not Neon's has no endpoint to guess: it needs one named.
    [
      "NEON_FETCH_ENDPOINT",
      { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: "postgres://app:pw@127.0.0.1:5432/app", NEON_FETCH_ENDPOINT: "" },
    ],
    ["AUTH_TENANT_CLAIM", { AUTH_SECRET: TEST_AUTH_SECRET, AUTH_TENANT_CLAIM: "exp" }],
    ["PORT", { AUTH_SECRET: TEST_AUTH_SECRET, PORT: "eighty" }],
    ["MAX_CONNECTIONS", { AUTH_SECRET: TEST_AUTH_SECRET, MAX_CONNECTIONS: "lots" }],
    ["LINK_MAX_PER_USER", { AUTH_SECRET: TEST_AUTH_SECRET, LINK_MAX_PER_USER: "none" }],
  ])("a bad %s stops it at start: one line naming the setting, no value, no stack trace", async (setting, env) => {
    const exit = await runToExit("node", [bundle], { ...endpoint.env, ...env });
    expect(exit.code).toBe(1);
    const lines = exit.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Misconfigured: ${setting} `));
    for (const value of Object.values(env))
      if (value && value !== TEST_AUTH_SECRET) expect(exit.stderr).not.toContain(value);
    expect(exit.stdout).toBe("");
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
