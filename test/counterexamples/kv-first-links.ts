// COUNTER-EXAMPLE. Never use this. It is the KV-first ownership check the Links issue is about,
// kept so a test can show, under the very load our implementation passes, that the race is real:
//
//   1. read the KV entry   2. nobody owns it?   3. write "mine"
//
// Between 1 and 3 every concurrent request reads the same "nobody", so they all pass the check,
// all answer 201, and the last write silently wins. An edge KV store makes it worse: writes take
// up to a minute to reach other locations. core/links/ lets Postgres' unique index decide instead.
import { Hono } from "hono";
import { linkKey } from "../../core/links/kv-keys.ts";
import { normalizeTarget } from "../../core/links/link.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import { createAuthenticator } from "../../core/tokens/auth.ts";
import { parseAuthSettings } from "../../core/tokens/settings.ts";

export function createKvFirstLinkApp(kv: KvCache, authSecret: string) {
  const authenticate = createAuthenticator(parseAuthSettings({ AUTH_SECRET: authSecret }));
  return new Hono().put("/v1/links/:provider/:externalAccountId", async (c) => {
    const { userId } = await authenticate(c.req.header("authorization"));
    const target = normalizeTarget({
      provider: c.req.param("provider"),
      externalAccountId: c.req.param("externalAccountId"),
    });
    const key = await linkKey("acme", target);
    const current = await kv.get(key);
    if (current !== null) {
      const owner = (JSON.parse(current) as { userId: string }).userId;
      if (owner !== userId) return c.json({ code: "external_account_already_linked" }, 409);
      return c.json({ ...target, userId }, 200);
    }
    await kv.put(key, JSON.stringify({ ...target, userId }), { ttlSeconds: 300 });
    return c.json({ ...target, userId }, 201);
  });
}

/** A KV store as an edge function sees it: every call is a network round trip. */
export function withLatency(kv: KvCache, ms: number): KvCache {
  const pause = () => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    get: async (key) => (await pause(), kv.get(key)),
    put: async (key, value, options) => (await pause(), kv.put(key, value, options)),
    delete: async (key) => (await pause(), kv.delete(key)),
    list: async (prefix, options) => (await pause(), kv.list(prefix, options)),
  };
}
