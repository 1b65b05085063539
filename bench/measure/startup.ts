// `npm run measure:runtimes -- --runs N`: the Cloudflare bundle's size, and per runtime the
// time from launching it as the bench does (node's release built and started in a process of its
// own, like workerd's and deno's) until /healthz first answers 200. The database stack is started
// once, before any clock runs: only the runtime is timed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { bundleWorker } from "../../dev/build/cloudflare.ts";
import { buildNodeRelease } from "../../dev/build/node.ts";
import { launchRuntime } from "../../dev/launchers/index.ts";
import { startLocalStack } from "../../dev/local-stack/stack.ts";
import { median } from "../../dev/support/stats.ts";
import { TEST_AUTH_SETTINGS } from "../../dev/support/tokens.ts";
import { RUNTIME_NAMES } from "../../edge/runtimes.ts";
import { bounds, muteStdout, runBenchCommand, runsOption } from "../lib/cli.ts";

// Fastly's launch is measured apart (fastly-startup.ts): its host compiles the wasm first.
const RUNTIMES = RUNTIME_NAMES.filter((name) => name !== "fastly");
const RUNS = { min: 1, default: 5 };
const USAGE = `npm run measure:runtimes -- [options]
  --runs N    launches of each runtime, their median printed ${bounds(RUNS)}
The Cloudflare bundle's size, and each runtime's time from its launch, as the bench launches it,
to its first /healthz answer (Fastly's: npx tsx bench/measure/fastly-startup.ts).`;

async function firstHealthy(url: string): Promise<void> {
  for (;;) {
    const answer = await fetch(`${url}/healthz`).catch(() => undefined);
    if (answer?.status === 200) return void (await answer.text());
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * One launch until its first /healthz answer, as the bench launches it: a runtime in a process of
 * its own logs to a file, and workerd's log, which Miniflare prints here, is muted, so stdout
 * holds the report alone.
 */
async function timedLaunch(runtime: (typeof RUNTIMES)[number], env: Record<string, string>): Promise<number> {
  const unmute = muteStdout();
  try {
    const started = performance.now();
    const server = await launchRuntime(runtime, env, { port: 0, log: "file", release: true });
    await firstHealthy(server.url);
    const elapsed = performance.now() - started;
    await server.close();
    return elapsed;
  } finally {
    unmute();
  }
}

async function main() {
  const runs = runsOption(USAGE, RUNS);
  const buildStarted = performance.now();
  const bundle = await bundleWorker();
  const buildMs = performance.now() - buildStarted;
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(
    `Cloudflare bundle: ${kib(bundle.bytes)} raw, ${kib(gzipSync(bundle.code).byteLength)} gzipped (esbuild, minified; built in ${buildMs.toFixed(0)} ms)`,
  );

  // Each node launch builds its release first, as each cloudflare launch bundles its worker.
  const releaseDir = mkdtempSync(join(tmpdir(), "startup-node-"));
  const releaseStarted = performance.now();
  await buildNodeRelease(join(releaseDir, "dist", "node")).finally(() =>
    rmSync(releaseDir, { recursive: true, force: true }),
  );
  console.log(`Node release: built in ${(performance.now() - releaseStarted).toFixed(0)} ms`);

  const stack = await startLocalStack();
  const env = {
    ...TEST_AUTH_SETTINGS,
    ...stack.settings,
  };
  try {
    console.log(`\nstart → first /healthz 200, median of ${runs} (min–max), ms`);
    for (const runtime of RUNTIMES) {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await timedLaunch(runtime, env));
      console.log(
        `${runtime.padEnd(11)} ${median(times).toFixed(0).padStart(6)}  (${Math.min(...times).toFixed(0)}–${Math.max(...times).toFixed(0)})`,
      );
    }
  } finally {
    await stack.close();
  }
}

await runBenchCommand(USAGE, main);
