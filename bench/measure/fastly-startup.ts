// `npx tsx bench/measure/fastly-startup.ts --runs N`: the compiled service's size, and the time from
// launching the Fastly runtime (wasm already built) to its first /healthz answer, then one more.
// /healthz needs no database, so none is started.
import { stat } from "node:fs/promises";
import { ensureFastlyWasm } from "../../dev/build/fastly.ts";
import { startFastlyRuntime } from "../../dev/launchers/fastly.ts";
import { median } from "../../dev/support/stats.ts";
import { TEST_AUTH_SETTINGS } from "../../dev/support/tokens.ts";
import { bounds, runBenchCommand, runsOption } from "../lib/cli.ts";

const RUNS = { min: 1, default: 5 };
const USAGE = `npx tsx bench/measure/fastly-startup.ts [options]
  --runs N    launches, their median printed ${bounds(RUNS)}
The compiled service's size, and Viceroy's time from its launch (the wasm built) to the first
/healthz answer, then to the next.`;

async function main() {
  const runs = runsOption(USAGE, RUNS);
  const env = {
    ...TEST_AUTH_SETTINGS,
    DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
    NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
  };

  const wasmPath = await ensureFastlyWasm();
  console.log(`bin/main.wasm: ${((await stat(wasmPath)).size / 1e6).toFixed(1)} MB`);

  const healthz = async (url: string) => (await fetch(`${url}/healthz`)).text();
  const firsts: number[] = [];
  const seconds: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const runtime = await startFastlyRuntime(env, { port: 0 });
    await healthz(runtime.url);
    firsts.push(performance.now() - started);
    const again = performance.now();
    await healthz(runtime.url);
    seconds.push(performance.now() - again);
    await runtime.close();
  }

  console.log(
    `launch → first /healthz answer: median ${median(firsts).toFixed(0)} ms over ${runs} runs (${firsts.map((v) => v.toFixed(0)).join(", ")})`,
  );
  console.log(`next /healthz: median ${median(seconds).toFixed(0)} ms`);
}

await runBenchCommand(USAGE, main);
