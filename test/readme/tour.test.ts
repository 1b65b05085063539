// Follows the README's curl tour on a fresh `npm start` (new embedded database, nothing cached)
// and checks that every step prints what the README shows.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { type Started, startServer } from "../local-stack/processes.ts";
import { matchesExpected, readTour, stepOutputs, tourScript } from "./tour.ts";

const ROOT = join(import.meta.dirname, "../..");

describe("the README's tour", () => {
  const steps = readTour(readFileSync(join(ROOT, "README.md"), "utf8"));
  const dataDir = mkdtempSync(join(tmpdir(), "tour-"));
  const env = { ...process.env, AUTH_SECRET: TEST_AUTH_SECRET, PGLITE_DATA_DIR: join(dataDir, "pglite") };
  let server: Started | undefined;
  let url: string;

  // `npm start`'s own process (node with the tsx loader), so that SIGTERM reaches the server
  // itself: through `npx tsx` it reached a runner that left the server running.
  beforeAll(async () => {
    server = await startServer({ PGLITE_DATA_DIR: env.PGLITE_DATA_DIR });
    url = server.url;
  });

  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("has steps, each showing what it prints", () => {
    expect(steps.length).toBeGreaterThan(10);
  });

  it("prints, step by step, what the README shows", () => {
    const run = spawnSync("bash", ["-c", tourScript(steps, url)], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    const outputs = stepOutputs(run.stdout);
    steps.forEach((step, i) => {
      const output = outputs[i] ?? "";
      const shown = `$ ${step.command}\n${output}`;
      expect(matchesExpected(output, step.expected), `${shown}\nREADME shows:\n${step.expected.join("\n")}`).toBe(true);
    });
  });
});
