// `npx tsx dev/measure/fastly-request-cost.ts [--requests N] [--rounds N]`: what one request costs
// in the Fastly test host, for the benchmark's two Fastly operations: the bare KV get
// (bin/kv-baseline.wasm) and a link lookup answered from KV (bin/main.wasm), both hosts in this
// process as in `npm run bench`. Each runs at concurrency 1 and 4 after an unmeasured round;
// printed per operation: p50 and this process's CPU time per request (the client included), and
// how many of the service's requests a reused instance served. With
// both cores busy (concurrency 4) latency follows the CPU time: p50 ≈ 4 × CPU per request / 2.
// No database: the links and the link-sync lease are put straight into the KV store.

import { KV_STORE } from "../../edge/fastly/bindings.ts";
import { ensureFastlyWasm, KV_BASELINE_WASM } from "../build/fastly.ts";
import { startFastlyHost } from "../fastly-host/host.ts";
import { localServerConfig } from "../launchers/fastly.ts";
import { parseCommandLine } from "../support/command-line.ts";
import { median, percentile } from "../support/stats.ts";
import { NO_DATABASE_ENV, seedLinkHits } from "./fastly-link-hits.ts";

const USAGE = `Usage: npx tsx dev/measure/fastly-request-cost.ts [--requests N] [--rounds N]

Bare KV get and KV-hit link lookup in the Fastly test host, at concurrency 1 and 4: p50 and CPU per request.`;

const values = parseCommandLine(USAGE, {
  requests: { type: "string", default: "200" },
  rounds: { type: "string", default: "3" },
});
const requests = Number(values.requests);
const rounds = Number(values.rounds);
const quiet = () => {};
const service = await startFastlyHost({
  wasmPath: await ensureFastlyWasm(),
  config: localServerConfig(NO_DATABASE_ENV),
  log: quiet,
});
const baseline = await startFastlyHost({
  wasmPath: await ensureFastlyWasm(KV_BASELINE_WASM),
  config: { backends: {}, kvStores: { [KV_STORE]: [] }, configStores: {}, secretStores: {} },
  log: quiet,
});
const linkHit = await seedLinkHits(service);
baseline.kv.insert(KV_STORE, "bench-baseline", { body: Buffer.from('{"a":1}'), mode: "overwrite" });

const operations = {
  "bare KV get": () => fetch(`${baseline.url}/kv`),
  "KV hit": linkHit,
};

for (const concurrency of [1, 4]) {
  const results: Record<string, { p50: number[]; cpu: number[] }> = {};
  for (let round = 0; round <= rounds; round++) {
    for (const [name, send] of Object.entries(operations)) {
      const measured = await phase(send, concurrency);
      if (round === 0) continue; // warm-up
      const result = (results[name] ??= { p50: [], cpu: [] });
      result.p50.push(measured.p50);
      result.cpu.push(measured.cpuMs);
    }
  }
  const line = Object.entries(results).map(
    ([name, r]) => `${name} p50 ${median(r.p50).toFixed(2)} ms, CPU ${median(r.cpu).toFixed(2)} ms/request`,
  );
  console.log(`concurrency ${concurrency}: ${line.join(" | ")}`);
}
// The service opts into reusable sandboxes (edge/fastly/index.ts); the bare KV get does not.
const { fresh, reused } = service.served;
console.log(`the service's requests: ${reused} served by a reused instance, ${fresh} by a fresh one`);
await Promise.all([service.close(), baseline.close()]);

async function phase(send: (i: number) => Promise<Response>, concurrency: number) {
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const lane = async () => {
    while (next < requests) {
      const started = performance.now();
      const response = await send(next++);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`HTTP ${response.status} from ${response.url}`);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const used = process.cpuUsage(cpu);
  return { p50: percentile(latencies, 50), cpuMs: (used.user + used.system) / 1000 / requests };
}
