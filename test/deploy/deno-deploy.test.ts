// deno.json's `deploy` section, checked as Deno Deploy builds from it: the tracked files, its
// install command run among them, and its entry point type-checked by Deno from that folder alone.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildDenoDeployUpload, DENO_DEPLOY_DIR, readDeployConfig, trackedFiles } from "../../dev/build/deno-deploy.ts";
import { ROOT } from "../../dev/build/fastly.ts";
import { PRODUCTION_INSTALL_COMMAND } from "../../dev/build/production-install.ts";
import { DENO_BIN } from "../../dev/launchers/deno.ts";
import { RUNTIMES } from "../../edge/runtimes.ts";
import { runToExit } from "./processes.ts";

describe("deno.json deploy", () => {
  it("is Deno Deploy's app configuration: an install command and the Deno entry as a dynamic runtime", async () => {
    const config = await readDeployConfig();
    expect(config.runtime.entrypoint.replace(/^\.\//, "")).toBe(RUNTIMES.deno.entry);
    expect(await trackedFiles()).toContain(RUNTIMES.deno.entry);
    // Production dependencies as the lock file pins them: what the service runs with elsewhere.
    expect(config.install).toBe(PRODUCTION_INSTALL_COMMAND);
    // Deploy Classic's keys (deployctl's include/exclude) are not read by Deno Deploy any more.
    const { deploy } = JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8"));
    expect(Object.keys(deploy).sort()).toEqual(["install", "runtime"]);
  });

  it("builds what the entry needs: Deno type-checks it from the tracked files and their install", async () => {
    const config = await readDeployConfig();
    await buildDenoDeployUpload();
    expect(existsSync(join(DENO_DEPLOY_DIR, "node_modules", "hono"))).toBe(true);
    expect(existsSync(join(DENO_DEPLOY_DIR, "node_modules", "vitest"))).toBe(false);
    const check = await runToExit(DENO_BIN, ["check", config.runtime.entrypoint], {}, DENO_DEPLOY_DIR);
    expect(check.code, check.stderr).toBe(0);
  }, 180_000);
});
