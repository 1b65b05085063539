// `npx tsx dev/measure/fastly-first-request.ts [--runs N] [--reused N] [wasm …]`: in the Fastly
// test host, the time of a fresh instance's first request (a KV-hit link lookup with a token)
// and of the same request in the reused instance after it. Each run starts a host with one
// instance; given several wasms, runs alternate between them, so load from other work falls on
// each alike. The first host of each wasm is a warm-up (V8 compiles the engine once per process).
import { stat } from "node:fs/promises";
import { relative } from "node:path";
import { ensureFastlyWasm } from "../build/fastly.ts";
import { startFastlyHost } from "../fastly-host/host.ts";
import { localServerConfig } from "../launchers/fastly.ts";
import { parseCommandLine } from "../support/command-line.ts";
import { median } from "../support/stats.ts";
import { NO_DATABASE_ENV, seedLinkHits } from "./fastly-link-hits.ts";

const USAGE = `Usage: npx tsx dev/measure/fastly-first-request.ts [--runs N] [--reused N] [wasm …]

A fresh instance's first KV hit and a reused instance's, per wasm (default: the service's, built if needed).`;

const { runs, reused, positionals } = (() => {
  const values = parseCommandLine(
    USAGE,
    {
      runs: { type: "string", default: "9" },
      reused: { type: "string", default: "20" },
    },
    process.argv.slice(2).filter((arg) => !arg.endsWith(".wasm")),
  );
  return {
    runs: Number(values.runs),
    reused: Number(values.reused),
    positionals: process.argv.slice(2).filter((arg) => arg.endsWith(".wasm")),
  };
})();
const wasms = positionals.length > 0 ? positionals : [await ensureFastlyWasm()];
const samples = new Map(wasms.map((wasm) => [wasm, { first: [] as number[], reused: [] as number[] }]));

for (let run = 0; run <= runs; run++) {
  for (const wasmPath of wasms) {
    const host = await startFastlyHost({
      wasmPath,
      config: localServerConfig(NO_DATABASE_ENV),
      concurrency: 1,
      log: () => {},
    });
    const linkHit = await seedLinkHits(host);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the instance is made ahead of its request
    const first = await timed(() => linkHit(0));
    const later: number[] = [];
    for (let i = 1; i <= reused; i++) later.push(await timed(() => linkHit(i)));
    if (host.served.fresh !== 1) throw new Error(`expected one fresh instance, got ${host.served.fresh}`);
    await host.close();
    if (run === 0) continue;
    samples.get(wasmPath)!.first.push(first);
    samples.get(wasmPath)!.reused.push(median(later));
  }
}

for (const [wasmPath, { first, reused: later }] of samples) {
  const mb = ((await stat(wasmPath)).size / 1e6).toFixed(2);
  const list = (values: number[]) => values.map((v) => v.toFixed(1)).join(", ");
  console.log(`${relative(process.cwd(), wasmPath)} (${mb} MB), ${runs} runs:`);
  console.log(`  fresh instance, first KV hit: median ${median(first).toFixed(1)} ms (${list(first)})`);
  console.log(`  reused instance, KV hit:      median ${median(later).toFixed(2)} ms (${list(later)})`);
}

async function timed(send: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await send();
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  return performance.now() - started;
}
