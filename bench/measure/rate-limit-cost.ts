// `npx tsx bench/measure/rate-limit-cost.ts [--requests N] [--blocks N] [--http]`: what the rate
// limits add to a KV hit, in process (or, with --http, over HTTP to Node's server in a process of
// its own): the same link lookup sent to an app without a rate limiter and to one with Node's
// (memory), in blocks that take turns (bench/measure/kv-hit.ts); short blocks, so the machine's
// drift lands on both alike. The quotas are raised out of
// reach, so every lookup is counted and none refused. Printed: the p50 of
// every lookup and the median of the blocks' means, each app's, and the difference.

import { parseCommandLine } from "../../dev/support/command-line.ts";
import { createMemoryRateLimiter } from "../../edge/rate-limit/memory.ts";
import { bounds, runBenchCommand, wholeNumber } from "../lib/cli.ts";
import { type KvHitCost, kvHitApp, kvHitsInTurns, serveApps, servedApart } from "./kv-hit.ts";

const REQUESTS = { min: 1, default: 10 };
const BLOCKS = { min: 1, default: 1500 };

const USAGE = `npx tsx bench/measure/rate-limit-cost.ts [options]
  --requests N  lookups per block, each app's ${bounds(REQUESTS)}
  --blocks N    blocks of each app, taking turns ${bounds(BLOCKS)}
  --http        over HTTP, each app behind Node's server on loopback, in another process (default: in process)
A KV-hit link lookup without and with the rate limiter, in turns: µs per request.`;

const values = parseCommandLine(USAGE, {
  requests: { type: "string" },
  blocks: { type: "string" },
  http: { type: "boolean", default: false },
  // The process --http starts to serve the apps.
  serve: { type: "boolean", default: false },
});

const unreachable = { RATE_LIMIT_CALLER_READS: "4000000000", RATE_LIMIT_TENANT_READS: "4000000000" };
const inProcess = {
  off: kvHitApp(unreachable),
  on: kvHitApp(unreachable, { rateLimiter: createMemoryRateLimiter() }),
};
if (values.serve) {
  await serveApps(inProcess);
} else {
  await runBenchCommand(USAGE, async () => {
    const requests = wholeNumber("requests", values.requests, REQUESTS);
    const blocks = wholeNumber("blocks", values.blocks, BLOCKS);
    const served = values.http ? await servedApart(import.meta.filename, ["off", "on"]) : undefined;
    const { off, on } = await kvHitsInTurns(served?.apps ?? inProcess, { requests, blocks });
    served?.close();
    report(served ? "over HTTP" : "in process", off, on, { requests, blocks });
  });
}

function report(
  how: string,
  off: KvHitCost,
  on: KvHitCost,
  { requests, blocks }: { requests: number; blocks: number },
) {
  const added = (measure: "p50Us" | "meanUs") => {
    const difference = on[measure] - off[measure];
    const signed = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;
    return `${signed(difference)} µs (${signed((difference / off[measure]) * 100)} %)`;
  };
  console.log(`KV hit ${how}, µs per request (${blocks} blocks of ${requests}, in turns):`);
  console.log(`  p50:  limiter off ${off.p50Us.toFixed(1)}, on ${on.p50Us.toFixed(1)}: ${added("p50Us")}`);
  console.log(`  mean: limiter off ${off.meanUs.toFixed(1)}, on ${on.meanUs.toFixed(1)}: ${added("meanUs")}`);
}
