// `npx tsx dev/measure/fastly-csv-import-cost.ts [--requests N] [--rows N]`: what a CSV import costs in the
// Fastly test host, csv-parse included: a fresh instance runs csv-parse's code for the first time
// on top of the parse. The import holds --rows rows (1,000 by default), all invalid (ids that could never be created), so no
// database is needed. Printed: the first import of fresh hosts (a new instance, csv-parse not yet
// compiled), then p50 and this process's CPU time per request once instances are reused.
import { ensureFastlyWasm } from "../build/fastly.ts";
import { type FastlyHost, startFastlyHost } from "../fastly-host/host.ts";
import { localServerConfig } from "../launchers/fastly.ts";
import { parseCommandLine } from "../support/command-line.ts";
import { median } from "../support/stats.ts";
import { signToken, TEST_AUTH_SETTINGS } from "../support/tokens.ts";

const USAGE = `Usage: npx tsx dev/measure/fastly-csv-import-cost.ts [--requests N] [--rows N]

A CSV import (every row invalid, no database) in the Fastly test host: p50 and CPU per request.`;

const values = parseCommandLine(USAGE, {
  requests: { type: "string", default: "100" },
  rows: { type: "string", default: "1000" },
});
const requests = Number(values.requests);
const env = {
  ...TEST_AUTH_SETTINGS,
  DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
};
const wasmPath = await ensureFastlyWasm();
const startHost = () => startFastlyHost({ wasmPath, config: localServerConfig(env), concurrency: 1, log: () => {} });
const authorization = `Bearer ${await signToken({ sub: "measure", tid: "bench", role: "service", expiresIn: "2h" })}`;
const rows = Array.from({ length: Number(values.rows) }, (_, i) => `"bad id ${i}",name ${i},steel,"etag-${i}"`);
const csv = ["id,name,material,source_etag", ...rows].join("\r\n");

async function importOnce(host: FastlyHost): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${host.url}/v1/assets/import`, {
    method: "POST",
    headers: { authorization, "content-type": "text/csv" },
    body: csv,
  });
  if (response.status !== 200) throw new Error(`import answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
  return performance.now() - started;
}

const firsts: number[] = [];
for (let run = 0; run < 5; run++) {
  const fresh = await startHost();
  firsts.push(await importOnce(fresh).finally(() => fresh.close()));
}
console.log(
  `first CSV import (${values.rows} rows) of a fresh host: median ${median(firsts).toFixed(1)} ms (${firsts.map((ms) => ms.toFixed(0)).join(", ")})`,
);

const host = await startHost();

try {
  for (let i = 0; i < 10; i++) await importOnce(host);
  const latencies: number[] = [];
  const cpuStarted = process.cpuUsage();
  for (let i = 0; i < requests; i++) latencies.push(await importOnce(host));
  const cpu = process.cpuUsage(cpuStarted);
  const cpuMs = (cpu.user + cpu.system) / 1000 / requests;
  console.log(
    `CSV import, ${values.rows} rows: p50 ${median(latencies).toFixed(1)} ms, CPU ${cpuMs.toFixed(1)} ms per request over ${requests} (instances: ${host.served.fresh} fresh, ${host.served.reused} reused)`,
  );
} finally {
  await host.close();
}
