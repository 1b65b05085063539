// Run by Deno before the deno runtime starts (deno.ts): writes the planted entries into the KV file
// the server will open, through the server's own adapter, so each is stored as the server stores it.
import { createDenoKv, type DenoKv } from "../../edge/kv/deno-kv.ts";
import { plantKvEntries } from "./planted-kv.ts";

declare const Deno: {
  env: { get(name: string): string | undefined };
  openKv(path: string): Promise<DenoKv & { close(): void }>;
};

const kv = await Deno.openKv(Deno.env.get("PLANTED_KV_PATH")!);
await plantKvEntries(createDenoKv(kv), JSON.parse(Deno.env.get("PLANTED_KV_ENTRIES")!));
kv.close();
