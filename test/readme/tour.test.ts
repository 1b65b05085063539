// Follows the README's curl tour on a fresh `npm start` (new embedded database, nothing cached)
// and checks that every step prints what the README shows.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_AUTH_SECRET } from "../support/tokens.ts";
import { matchesExpected, readTour } from "./tour.ts";

const ROOT = join(import.meta.dirname, "../..");
const README_URL = "http://127.0.0.1:8787";
const STEP_MARK = "@@tour-step@@";

describe("the README's tour", () => {
  const steps = readTour(readFileSync(join(ROOT, "README.md"), "utf8"));
  const dataDir = mkdtempSync(join(tmpdir(), "tour-"));
  const env = { ...process.env, AUTH_SECRET: TEST_AUTH_SECRET, PGLITE_DATA_DIR: join(dataDir, "pglite") };
  let server: ChildProcess;
  let url: string;

  beforeAll(async () => {
    server = spawn("npx", ["tsx", "dev/start.ts", "--port", "0"], { cwd: ROOT, env, stdio: "pipe" });
    url = await listeningUrl(server);
  });

  afterAll(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((done) => server.once("exit", done));
      server.kill("SIGTERM");
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("has steps, each showing what it prints", () => {
    expect(steps.length).toBeGreaterThan(10);
  });

  it("prints, step by step, what the README shows", () => {
    const script = steps
      .map(({ command }) => `${command.replaceAll(README_URL, url)}\nprintf '\\n${STEP_MARK}\\n'`)
      .join("\n");
    const run = spawnSync("bash", ["-c", script], { cwd: ROOT, env, encoding: "utf8", timeout: 120_000 });
    const outputs = run.stdout.split(`${STEP_MARK}\n`);
    steps.forEach((step, i) => {
      const output = (outputs[i] ?? "").replace(/^\n+/, "");
      const shown = `$ ${step.command}\n${output}`;
      expect(matchesExpected(output, step.expected), `${shown}\nREADME shows:\n${step.expected.join("\n")}`).toBe(true);
    });
  });
});

/** The API's URL, from the line `npm start` prints once it serves. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(seen)?.[1];
      if (url) resolve(url);
    });
    child.stderr!.on("data", (chunk: Buffer) => (seen += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`npm start exited (${code}):\n${seen}`)));
  });
}
