import type { RawSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { startNodeService } from "../../edge/node/service.ts";
import { type KvEntries, plantKvEntries } from "./planted-kv.ts";

/** Node, in this process: the same service as the production entry, on 127.0.0.1. */
export async function startNodeRuntime(
  env: RawSettings,
  { port, kvEntries }: { port?: number; kvEntries?: KvEntries } = {},
) {
  const kv = createMemoryKv();
  await plantKvEntries(kv, kvEntries);
  return startNodeService(env, { port }, kv);
}
