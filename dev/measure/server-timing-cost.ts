// `npx tsx dev/measure/server-timing-cost.ts [--requests N] [--blocks N]`: what SERVER_TIMING=on
// costs a request, in process: the same KV-hit link lookup sent to two apps, one with the setting
// off and one with it on, in blocks that take turns (a busy moment falls on both alike). Printed:
// microseconds per request of each, as the median of the blocks. The database is a constant
// answer: a KV hit never reaches it, and the port's timing wrapper is what is measured.

import { createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { parseCommandLine } from "../cli.ts";
import { median } from "../support/stats.ts";
import { bearer, TEST_AUTH_SECRET } from "../support/tokens.ts";

const USAGE = `Usage: npx tsx dev/measure/server-timing-cost.ts [--requests N] [--blocks N]

A KV-hit link lookup in process with SERVER_TIMING off and on, in turns: µs per request, median of the blocks.`;

const values = parseCommandLine(USAGE, {
  requests: { type: "string", default: "500" },
  blocks: { type: "string", default: "20" },
});
const requests = Number(values.requests);
const blocks = Number(values.blocks);

const LINK = {
  tenant_id: "acme",
  provider: "github",
  external_account_id: "1",
  user_id: "alice",
  linked_at: new Date(),
};
const sql: Sql = { query: async () => [{ ...LINK, display_name: null }] as never, transaction: async () => [] };
const appWith = (serverTiming: string) =>
  createApp({
    sql,
    kv: createMemoryKv(),
    settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET, SERVER_TIMING: serverTiming }),
    runtime: "node",
    logger: silentLogger,
  });
const apps = { off: appWith("off"), on: appWith("on") };
const headers = await bearer();

async function lookups(app: ReturnType<typeof appWith>, count: number, source = "kv"): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await app.request("/v1/links/github/1", { headers });
    await response.arrayBuffer();
    // The first lookup fills the cache; every measured one must be a hit.
    if (response.status !== 200 || response.headers.get("x-link-source") !== source)
      throw new Error(`expected a KV hit, got ${response.status} ${response.headers.get("x-link-source")}`);
  }
}

for (const app of Object.values(apps)) {
  await lookups(app, 1, "db");
  await lookups(app, requests);
}
const perRequestUs: Record<keyof typeof apps, number[]> = { off: [], on: [] };
for (let block = 0; block < blocks; block++) {
  for (const name of block % 2 ? (["on", "off"] as const) : (["off", "on"] as const)) {
    const started = performance.now();
    await lookups(apps[name], requests);
    perRequestUs[name].push(((performance.now() - started) / requests) * 1000);
  }
}
const [off, on] = [median(perRequestUs.off), median(perRequestUs.on)];
console.log(`KV hit in process, µs per request (median of ${blocks} blocks of ${requests}):`);
console.log(`  SERVER_TIMING off ${off.toFixed(1)}, on ${on.toFixed(1)}: +${(on - off).toFixed(1)} µs`);
