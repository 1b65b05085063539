// deno.json's `deploy` section, checked as Deno Deploy would use it: exactly the files it uploads,
// the production dependencies its install step adds, type-checked by Deno from that folder alone.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildDenoDeployUpload,
  DENO_DEPLOY_DIR,
  matchesPattern,
  readDeployConfig,
  uploadedFiles,
} from "../../dev/build/deno-deploy.ts";
import { ROOT } from "../../dev/build/fastly.ts";
import { DENO_BIN } from "../../dev/launchers/deno.ts";
import { runToExit } from "./processes.ts";

describe("deno.json deploy", () => {
  it("names only paths that exist, and every exclude pattern leaves something out", async () => {
    const config = await readDeployConfig();
    for (const pattern of config.include) expect(existsSync(join(ROOT, pattern)), pattern).toBe(true);
    const everything = await uploadedFiles({ ...config, exclude: [] });
    for (const pattern of config.exclude) {
      expect(
        everything.some((path) => matchesPattern(path, pattern)),
        `${pattern} matches no file`,
      ).toBe(true);
    }
    const uploaded = await uploadedFiles(config);
    expect(uploaded).toContain(config.entrypoint);
    expect(uploaded.filter((path) => /\.test(\.deno)?\.ts$/.test(path))).toEqual([]);
  });

  it("uploads what the entry needs: Deno type-checks it with only the upload and its install", async () => {
    const config = await readDeployConfig();
    await buildDenoDeployUpload();
    const check = await runToExit(DENO_BIN, ["check", config.entrypoint], {}, DENO_DEPLOY_DIR);
    expect(check.code, check.stderr).toBe(0);
  }, 120_000);
});
