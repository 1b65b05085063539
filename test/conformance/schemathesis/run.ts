// schemathesis against the document a runtime serves at /openapi.json: every phase (examples,
// coverage, fuzzing, stateful) and every check, under the repository's schemathesis.toml (its
// seed, its bound on cases, and each expectation it relaxes with the reason). A finding fails the
// test with schemathesis's own report, whose curl lines reproduce it by hand (docs/testing.md).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SUITE_STARTUP_TIMEOUT_MS as STARTUP_TIMEOUT_MS } from "../../../dev/launchers/child-server.ts";
import { launchRuntime, missingRuntime, type RunningRuntime, type RuntimeName } from "../../../dev/launchers/index.ts";
import { type LocalStack, startLocalStack } from "../../../dev/local-stack/stack.ts";
import { describeNeeding } from "../../../dev/support/required-tool.ts";
import { signToken, TEST_AUTH_SECRET } from "../../../dev/support/tokens.ts";

const ROOT = join(import.meta.dirname, "../../..");
const SCHEMATHESIS = join(ROOT, ".cache/schemathesis/bin/st");
const missing = existsSync(SCHEMATHESIS)
  ? undefined
  : `schemathesis is not at ${SCHEMATHESIS} (bash .ci/tools installs 4.32.5 into .cache/schemathesis)`;
const PHASES = ["Examples", "Coverage", "Fuzzing", "Stateful"];
// The stateful phase follows 10 of the links it infers at the configuration's seed and 60 scenarios
// (a change of the document moves what each seed generates: 16 at seed 11).
const MIN_LINKS_FOLLOWED = 10;

// The configuration bounds a run to about a minute; a busy machine gets as much again.
const RUN_TIMEOUT_MS = 240_000;

export function runSchemathesis(runtime: RuntimeName): void {
  // Fastly's service needs Viceroy too: without it, skipped with a warning like any other tool's suite.
  const lacking = missing ?? missingRuntime(runtime);
  describeNeeding(missing ? "schemathesis" : "Viceroy", lacking, `schemathesis [${runtime}]`, () => {
    let stack: LocalStack | undefined;
    let running: RunningRuntime | undefined;
    beforeAll(async () => {
      stack = await startLocalStack();
      running = await launchRuntime(runtime, { AUTH_SECRET: TEST_AUTH_SECRET, ...stack.settings }, { port: 0 });
    }, STARTUP_TIMEOUT_MS);
    afterAll(async () => {
      await running?.close();
      await stack?.close();
    });

    it(
      "finds nothing, in every phase, with every check",
      async () => {
        // An admin of a tenant of its own: every operation, the admin ones too, answers it.
        const token = await signToken({ sub: "schemathesis", tid: `schemathesis-${runtime}`, role: "admin" });
        const { code, output } = await st(["run", `${running!.url}/openapi.json`, "--no-color"], token);
        expect(code, output).toBe(0);
        // Every phase ran and passed (a phase that found nothing to do would be skipped).
        for (const phase of PHASES) expect(output, output).toMatch(new RegExp(`✅ +${phase}\\b`));
        // The stateful phase chained calls as deep as the configuration asks.
        const covered = Number(/API Links: +(\d+) covered/.exec(output)?.[1] ?? 0);
        expect(covered, output).toBeGreaterThanOrEqual(MIN_LINKS_FOLLOWED);
      },
      RUN_TIMEOUT_MS,
    );
  });
}

/** Runs schemathesis from the repository's root, where it reads schemathesis.toml. */
function st(args: string[], token: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(SCHEMATHESIS, args, {
      cwd: ROOT,
      env: { ...process.env, SCHEMATHESIS_TOKEN: token, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
