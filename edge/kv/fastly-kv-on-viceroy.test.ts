// The KV port's contract through the Fastly adapter on a real KV Store: Viceroy's, which keeps
// Fastly's key rules and pages listings with its own cursors. The adapter runs inside a wasm built
// by js-compute (test/ports/fastly-kv-service/), called over HTTP.

import assert from "node:assert/strict";
import { join } from "node:path";
import type { KvCache } from "../../core/ports/kv.ts";
import { ensureFastlyWasm, ROOT } from "../../dev/build/fastly.ts";
import { STARTUP_TIMEOUT_MS } from "../../dev/launchers/child-server.ts";
import { FASTLY_MANIFEST } from "../../dev/launchers/fastly.ts";
import { runManifest } from "../../dev/launchers/fastly-manifest.ts";
import { startViceroy } from "../../dev/launchers/viceroy.ts";
import { describeWithViceroy } from "../../dev/support/viceroy.ts";
import type { ContractCase } from "../../test/ports/contract.ts";
import { describeContract } from "../../test/ports/describe-contract.ts";
import { kvContract } from "../../test/ports/kv-contract.ts";

const KV_SERVICE_WASM = {
  entry: join(ROOT, "test", "ports", "fastly-kv-service", "fastly.ts"),
  wasmPath: join(ROOT, "bin", "kv-service.wasm"),
  sourceDirs: ["test/ports/fastly-kv-service", "edge/kv", "edge/fastly", "core/ports", "dev/build"],
};

/** The KvCache port of the wasm served at `url`: each call one request. */
function kvOverHttp(url: string): KvCache {
  const call = async (method: string, ...args: unknown[]) => {
    const response = await fetch(url, { method: "POST", body: JSON.stringify({ method, args }) });
    const answer = (await response.json()) as { result?: unknown; error?: string };
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.result as never;
  };
  return {
    get: (key) => call("get", key),
    put: (key, value, options) => call("put", key, value, options),
    delete: (key) => call("delete", key),
    // JSON would send an absent options object as null, which the adapter's default does not take.
    list: async (prefix, options = {}) => {
      const page = (await call("list", prefix, options)) as { keys: string[]; cursor?: string };
      return page.cursor === undefined ? { keys: page.keys } : page;
    },
  };
}

// Keys the store itself refuses (Viceroy: "./" anywhere, "." and "..", `#;?^|`, CR, LF), each kept
// and listed back as given: the port takes any key.
const refusedKeys: ContractCase<KvCache> = [
  "keeps keys the store refuses as they are, and lists them back",
  async (kv) => {
    const keys = ["odd/a./b", "odd/a../b", "odd/../b", "odd/./b", "odd/x/.", "odd/#;?^|", "odd/\r\n"];
    for (const key of keys) await kv.put(key, key, { ttlSeconds: 60 });
    for (const key of keys) assert.equal(await kv.get(key), key);
    assert.deepEqual([...(await kv.list("odd/")).keys].sort(), [...keys].sort());
    for (const key of keys) await kv.delete(key);
    assert.deepEqual((await kv.list("odd/")).keys, []);
  },
];

describeWithViceroy("the Fastly KV adapter on Viceroy's KV Store", () => {
  describeContract(
    "KV cache contract: Fastly KV Store (Viceroy)",
    [...kvContract, refusedKeys],
    async () => {
      const { toml, secretEnv } = runManifest(FASTLY_MANIFEST, {});
      const wasmPath = await ensureFastlyWasm(KV_SERVICE_WASM);
      const viceroy = await startViceroy({ wasmPath, manifest: toml, env: secretEnv, port: 0 });
      return { port: kvOverHttp(viceroy.url), close: () => viceroy.close() };
      // The wasm's build, then Viceroy's wait.
    },
    STARTUP_TIMEOUT_MS + 60_000,
  );
});
