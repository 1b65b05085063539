// The typed client as someone outside this repository gets it: `npm pack client` builds the
// package (JavaScript and declarations), a scratch project installs the tarball, type-checks a
// script with the settings `tsc --init` gives a new project (and with the module resolutions older
// projects and bundlers use), and runs it against `npm start`.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../../dev/support/tokens.ts";
import { type Started, startServer } from "../local-stack/processes.ts";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

// The server and token are written into the script: the types `tsc --init` gives name no
// runtime's globals, so a script reading `process.env` would need Node's types installed too.
const script = (
  baseUrl: string,
  token: string,
) => `import { createClient, type Problem, UnexpectedResponseError } from "edge-race-free-client";

const api = createClient({ baseUrl: ${JSON.stringify(baseUrl)}, token: ${JSON.stringify(token)} });
const account = { path: { provider: "github", externalAccountId: "77" } };
const linked = await api.PUT("/v1/links/{provider}/{externalAccountId}", { params: account });
const other = { path: { provider: "github", externalAccountId: "78" } };
const second = await api.PUT("/v1/links/{provider}/{externalAccountId}", { params: other });
const problem: Problem | undefined = second.error;
const page = await api.GET("/v1/documents", { params: { query: { limit: 10 } } });
const gateway = createClient({ baseUrl: ${JSON.stringify(baseUrl)}, fetch: async () => new Response("<h1>Bad Gateway</h1>", { status: 502 }) });
const thrown = await gateway.GET("/healthz").catch((error: unknown) => error);
const unexpected = thrown instanceof UnexpectedResponseError ? thrown.status : null;
console.log(JSON.stringify({ linked: linked.data?.userId, status: second.response.status, problem: problem?.code, items: page.data?.items.length, unexpected }));
`;

// A field the answer does not have: the declarations carry the API's types, so the compiler refuses it.
const WRONG_FIELD = `import { createClient } from "edge-race-free-client";
const page = await createClient({ baseUrl: "http://127.0.0.1" }).GET("/v1/documents");
console.log(page.data?.itemz);
`;

describe("the client package, outside this repository", () => {
  const scratch = mkdtempSync(join(tmpdir(), "client-package-"));
  let server: Started | undefined;

  beforeAll(async () => {
    server = await startServer({ PGLITE_DATA_DIR: join(scratch, "pglite") });
    // What an earlier build left and the sources no longer make: the pack must not ship it.
    mkdirSync(join(ROOT, "client/dist"), { recursive: true });
    writeFileSync(join(ROOT, "client/dist/left-by-an-earlier-build.js"), "export {};\n");
    await run("npm", ["pack", "./client", "--pack-destination", scratch], { cwd: ROOT });
    const tarball = readdirSync(scratch).find((name) => name.endsWith(".tgz"));
    const project = join(scratch, "project");
    await run("mkdir", [project]);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(scratch, tarball!)], {
      cwd: project,
    });
    await run("node", [TSC, "--init"], { cwd: project });
    const token = await signToken({ sub: "carol", tid: "acme" });
    writeFileSync(join(project, "script.ts"), script(server.url, token));
  }, 180_000);

  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it("type-checks and runs a script against the API", async () => {
    const project = join(scratch, "project");
    await run("node", [TSC, "-p", "."], { cwd: project });
    const { stdout } = await run("node", ["script.js"], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({
      linked: "carol",
      status: 409,
      problem: "provider_already_linked",
      items: 0,
      unexpected: 502,
    });
  });

  it.each([
    ["a bundler's", ["--module", "esnext", "--moduleResolution", "bundler"]],
    ["Node 10's (no exports: main and types)", ["--module", "esnext", "--moduleResolution", "node10"]],
  ])("type-checks the script under %s module resolution", async (_, options) => {
    const project = join(scratch, "project");
    await run("node", [TSC, "-p", ".", "--noEmit", ...options], { cwd: project });
  });

  it("ships the build of the sources and nothing else", async () => {
    const tarball = readdirSync(scratch).find((name) => name.endsWith(".tgz"))!;
    const { stdout } = await run("tar", ["-tzf", join(scratch, tarball)]);
    expect(stdout.split("\n").filter(Boolean).sort()).toEqual([
      "package/dist/index.d.ts",
      "package/dist/index.js",
      "package/dist/schema.d.ts",
      "package/dist/schema.js",
      "package/package.json",
    ]);
  });

  it("refuses a field the answer does not have", async () => {
    const project = join(scratch, "project");
    writeFileSync(join(project, "wrong.ts"), WRONG_FIELD);
    const checked = await run("node", [TSC, "-p", ".", "--noEmit"], { cwd: project }).catch((error) => error);
    rmSync(join(project, "wrong.ts"));
    expect(checked.stdout).toContain("Property 'itemz' does not exist");
  });
});
