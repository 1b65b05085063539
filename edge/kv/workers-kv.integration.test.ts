import { Miniflare } from "miniflare";
import { expect, it } from "vitest";
import { describeContract } from "../../test/ports/describe-contract.ts";
import { kvContract } from "../../test/ports/kv-contract.ts";
import { createWorkersKv, WORKERS_KV_READ_LAG_MS, type WorkersKvNamespace } from "./workers-kv.ts";

// The adapter over a real Workers KV namespace, served by workerd.
describeContract("KV cache contract: Workers KV (Miniflare)", kvContract, async () => {
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch: () => new Response(null, { status: 404 }) }",
    kvNamespaces: ["LINKS"],
  });
  const namespace = (await mf.getKVNamespace("LINKS")) as unknown as WorkersKvNamespace;
  return { port: createWorkersKv(namespace), close: () => mf.dispose() };
});

// Miniflare's store is one process and reads back at once; Cloudflare's locations keep what they
// read for a get's cacheTtl (60 s), an absence too: the adapter says so, for the link sync.
it("says its reads may lag a change made at another location by a get's cacheTtl", () => {
  const namespace = {} as WorkersKvNamespace;
  expect(createWorkersKv(namespace).readLagMs).toBe(WORKERS_KV_READ_LAG_MS);
  expect(WORKERS_KV_READ_LAG_MS).toBe(60_000);
});
