// The Fastly KV adapter (edge/kv/fastly-kv.ts) over the KV Store of the runtime serving this wasm,
// called over HTTP: `POST /` with `{"method": "get" | "put" | "delete" | "list", "args": [...]}`
// answers `{"result": …}` or, when the call throws, 500 `{"error": "…"}`. Built and served on
// Viceroy by edge/kv/fastly-kv-on-viceroy.test.ts, so the port's contract runs on Viceroy's store.
import { KVStore } from "fastly:kv-store";
import { KV_STORE } from "../../../edge/fastly/bindings.ts";
import { createFastlyKv } from "../../../edge/kv/fastly-kv.ts";

async function answer(request: Request): Promise<Response> {
  const { method, args } = (await request.json()) as { method: "get" | "put" | "delete" | "list"; args: unknown[] };
  // Stores open only while a request runs.
  const kv = createFastlyKv(new KVStore(KV_STORE));
  try {
    const call = kv[method] as (...args: unknown[]) => Promise<unknown>;
    return Response.json({ result: (await call(...args)) ?? null });
  } catch (error) {
    return Response.json({ error: String(error) }, { status: 500 });
  }
}

addEventListener("fetch", (event) => event.respondWith(answer(event.request)));
