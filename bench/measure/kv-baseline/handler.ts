// The benchmark's baseline: a runtime serving one request that does nothing but one get from its
// KV store (through the same KvCache adapter the app uses) and answers. The app's KV-hit latency
// over this one is what the app itself adds. Nothing here ships; `npm run bench` starts it.
import type { KvCache } from "../../../core/ports/kv.ts";

export const BASELINE_PATH = "/kv";
const KEY = "bench-baseline";

/** GET /kv: the stored value (404 when absent); PUT /kv: stores the body (the bench's setup). */
export function kvBaselineHandler(kv: KvCache): (request: Request) => Promise<Response> {
  return async (request) => {
    if (new URL(request.url).pathname !== BASELINE_PATH) return new Response(null, { status: 404 });
    if (request.method === "PUT") {
      await kv.put(KEY, await request.text(), { ttlSeconds: 3600 });
      return new Response(null, { status: 204 });
    }
    const value = await kv.get(KEY);
    return value === null ? new Response(null, { status: 404 }) : new Response(value);
  };
}
