// The Fastly package as `fastly compute deploy` would upload it, built and validated by the Fastly
// CLI from npm (@fastly/cli). Publishing needs an account (docs/deploy.md).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../dev/build/fastly.ts";
import { runToExit } from "./processes.ts";

const FASTLY = join(ROOT, "node_modules", ".bin", "fastly");
const PACKAGE = join("pkg", "edge-race-free.tar.gz");
// The CLI looks for a newer wasm-tools on GitHub (not needed to build); a proxy on a closed local
// port keeps that attempt on this machine, where it fails at once.
const OFFLINE = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "" };

describe("fastly compute", () => {
  it("build --non-interactive packs the service, and validate accepts the package", async () => {
    const build = await runToExit(FASTLY, ["compute", "build", "--non-interactive", "--metadata-disable"], OFFLINE, ROOT);
    expect(build.code, build.stdout + build.stderr).toBe(0);
    expect(build.stdout).toContain(`Built package (${PACKAGE})`);

    const { stdout: listing } = await promisify(execFile)("tar", ["-tzf", join(ROOT, PACKAGE)]);
    expect(listing.split("\n")).toEqual(expect.arrayContaining(["edge-race-free/fastly.toml", "edge-race-free/bin/main.wasm"]));

    const validate = await runToExit(FASTLY, ["compute", "validate", "-p", PACKAGE], OFFLINE, ROOT);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toContain("Validated package");
  }, 300_000);
});
