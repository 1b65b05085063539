import { Miniflare } from "miniflare";
import { createWorkersKv, type WorkersKvNamespace } from "./workers-kv.ts";
import { kvCacheContract } from "../../test/ports/kv-contract.ts";

// The adapter over a real Workers KV namespace, served by workerd.
kvCacheContract("Workers KV (Miniflare)", async () => {
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch: () => new Response(null, { status: 404 }) }",
    kvNamespaces: ["LINKS"],
  });
  const namespace = (await mf.getKVNamespace("LINKS")) as unknown as WorkersKvNamespace;
  return { kv: createWorkersKv(namespace), close: () => mf.dispose() };
});
