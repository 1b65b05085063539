// The Fastly package as `fastly compute deploy` would upload it, built and validated by the Fastly
// CLI from npm (@fastly/cli). Publishing needs an account (docs/deploy.md).
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE } from "../../core/http/problem.ts";
import { ROOT } from "../../dev/build/fastly.ts";
import { startFastlyRuntime } from "../../dev/launchers/fastly.ts";
import { describeWithViceroy } from "../../dev/support/viceroy.ts";
import { runToExit } from "./processes.ts";
import { UNIMPORTABLE_JWKS } from "./refusals.ts";

const FASTLY = join(ROOT, "node_modules", ".bin", "fastly");
const PACKAGE = join("pkg", "edge-race-free.tar.gz");
// The CLI looks for a newer wasm-tools on GitHub (not needed to build); a proxy on a closed local
// port keeps that attempt on this machine, where it fails at once.
const OFFLINE = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "" };

/**
 * The project's sources in a folder of their own: the CLI replaces bin/main.wasm while it builds,
 * which other suites running at the same time read.
 */
async function projectCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fastly-package-"));
  for (const entry of ["core", "edge", "dev", "fastly.toml", "package.json", "package-lock.json", "tsconfig.json"]) {
    await cp(join(ROOT, entry), join(dir, entry), { recursive: true });
  }
  await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

describe("fastly compute", () => {
  let project: string;
  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  it("build --non-interactive packs the service, and validate accepts the package", async () => {
    project = await projectCopy();
    const build = await runToExit(
      FASTLY,
      ["compute", "build", "--non-interactive", "--metadata-disable"],
      OFFLINE,
      project,
    );
    expect(build.code, build.stdout + build.stderr).toBe(0);
    expect(build.stdout).toContain(`Built package (${PACKAGE})`);

    const { stdout: listing } = await promisify(execFile)("tar", ["-tzf", join(project, PACKAGE)]);
    expect(listing.split("\n")).toEqual(
      expect.arrayContaining(["edge-race-free/fastly.toml", "edge-race-free/bin/main.wasm"]),
    );

    const validate = await runToExit(FASTLY, ["compute", "validate", "-p", PACKAGE], OFFLINE, project);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toContain("Validated package");
  }, 300_000);
});

describeWithViceroy("the service with an unusable setting, on Viceroy", () => {
  let service: Awaited<ReturnType<typeof startFastlyRuntime>> | undefined;
  afterAll(async () => {
    await service?.close();
  });

  it.each([
    ["AUTH_SECRET", { AUTH_SECRET: "short-secret-value" }],
    ["AUTH_JWKS", { AUTH_SECRET: "", AUTH_JWKS: '{"keys": "not-a-list"}' }],
    ["AUTH_JWKS", UNIMPORTABLE_JWKS],
    ["NEON_FETCH_ENDPOINT", { NEON_FETCH_ENDPOINT: "ftp://127.0.0.1:9/sql" }],
    // Read by Compute's own URL class: taken, /healthz answered 200 and every statement would fail.
    ["NEON_FETCH_ENDPOINT", { NEON_FETCH_ENDPOINT: "https://user:hunter2-password@127.0.0.1:9/sql" }],
    ["AUTH_SECRET_SCOPE", { AUTH_SECRET_SCOPE: "" }],
  ])(
    "a bad %s: every request answers 500 misconfigured naming it, and the log says which",
    async (setting, bad) => {
      const env = {
        AUTH_SECRET: "a-development-secret-of-32-bytes-or-more",
        AUTH_SECRET_SCOPE: "local",
        DATABASE_URL: "postgres://app:pw@127.0.0.1:9/app",
        NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
        ...bad,
      };
      await service?.close();
      // Its log (the service's stdout through Viceroy's) in a file, read once the requests are answered.
      service = await startFastlyRuntime(env, { port: 0, log: "file" });
      for (const path of ["/healthz", "/v1/me/links"]) {
        const response = await fetch(`${service.url}${path}`);
        expect(response.status).toBe(500);
        expect(response.headers.get("content-type")).toBe(PROBLEM_CONTENT_TYPE);
        const body = await response.text();
        expect(JSON.parse(body)).toMatchObject({ code: "misconfigured", setting });
        for (const value of Object.values(bad)) if (value) expect(body).not.toContain(value);
      }
      const log = await readFile(service.logFile!, "utf8");
      expect(log).toMatch(new RegExp(`"event":"misconfigured".*"setting":"${setting}"`));
      for (const value of Object.values(bad)) if (value) expect(log).not.toContain(value);
    },
    300_000,
  );
});
