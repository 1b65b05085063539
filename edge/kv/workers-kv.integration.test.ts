import { Miniflare } from "miniflare";
import { describeContract } from "../../test/ports/describe-contract.ts";
import { kvContract } from "../../test/ports/kv-contract.ts";
import { createWorkersKv, type WorkersKvNamespace } from "./workers-kv.ts";

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
