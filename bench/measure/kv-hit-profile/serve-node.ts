// One server of the profile (bench/measure/kv-hit-profile/run.ts) in a Node process of its own,
// started with --inspect: `baseline` the bare KV get, `app` the Node service as `npm start` runs
// it, its KV holding PROFILE_KV_ENTRIES. Prints {"url": …} once it listens.

import { startNodeRuntime } from "../../../dev/launchers/node.ts";
import type { KvEntries } from "../../../dev/launchers/planted-kv.ts";
import { createMemoryKv } from "../../../edge/kv/memory.ts";
import { listen } from "../../../edge/node/server.ts";
import { kvBaselineHandler } from "../kv-baseline/handler.ts";

const entries = JSON.parse(process.env.PROFILE_KV_ENTRIES ?? "{}") as KvEntries;
const server =
  process.argv[2] === "baseline"
    ? await listen(kvBaselineHandler(createMemoryKv()), { port: 0 })
    : await startNodeRuntime(process.env, { port: 0, kvEntries: entries });
// stderr: stdout is the app's request log, written to a file as in production.
process.stderr.write(`${JSON.stringify({ url: server.url })}\n`);
