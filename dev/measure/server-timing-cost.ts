// `npx tsx dev/measure/server-timing-cost.ts [--requests N] [--blocks N]`: what SERVER_TIMING=on
// costs a request, in process: the same KV-hit link lookup sent to two apps, one with the setting
// off and one with it on, in blocks that take turns (dev/measure/kv-hit.ts). Printed: microseconds
// per request of each, as the median of the blocks. The port's timing wrapper is what is measured.
import { parseCommandLine } from "../support/command-line.ts";
import { kvHitApp, kvHitsInTurns } from "./kv-hit.ts";

const USAGE = `Usage: npx tsx dev/measure/server-timing-cost.ts [--requests N] [--blocks N]

A KV-hit link lookup in process with SERVER_TIMING off and on, in turns: µs per request, median of the blocks.`;

const values = parseCommandLine(USAGE, {
  requests: { type: "string", default: "500" },
  blocks: { type: "string", default: "20" },
});
const requests = Number(values.requests);
const blocks = Number(values.blocks);

const apps = { off: kvHitApp({ SERVER_TIMING: "off" }), on: kvHitApp({ SERVER_TIMING: "on" }) };
const { off, on } = await kvHitsInTurns(apps, { requests, blocks });
console.log(`KV hit in process, µs per request (median of ${blocks} blocks of ${requests}):`);
console.log(
  `  SERVER_TIMING off ${off.meanUs.toFixed(1)}, on ${on.meanUs.toFixed(1)}: +${(on.meanUs - off.meanUs).toFixed(1)} µs`,
);
