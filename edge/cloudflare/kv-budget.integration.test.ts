// The KV operations of one Workers invocation, all of them: an admin resync spends what its
// budget allows, and the same request's sign-in on a fresh isolate, with AUTH_JWKS_URL, reads
// and writes the key set kept in KV (core/tokens/stored-key-set.ts). Workers allow 1,000 KV
// operations per invocation; the entry (edge/cloudflare/index.ts) is driven here as Workers
// drive it, with a fresh `env` (a fresh isolate: the entry builds one app per bindings object),
// over a KV namespace in memory whose every call is counted as Workers count them.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mapBounded } from "../../core/lib/map-bounded.ts";
import { createLinkCache } from "../../core/links/cache.ts";
import { linkKey } from "../../core/links/kv-keys.ts";
import type { Link } from "../../core/links/link.ts";
import { silentLogger } from "../../core/log.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { KEY_SET_KEY_PREFIX } from "../../core/tokens/stored-key-set.ts";
import { type LocalStack, startLocalStack } from "../../dev/local-stack/stack.ts";
import {
  type IdentityProvider,
  PROVIDER_SETTINGS,
  startIdentityProvider,
} from "../../test/conformance/identity-provider.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { createWorkersKv, type WorkersKvNamespace } from "../kv/workers-kv.ts";
import { createNeonSql } from "../neon/neon-sql.ts";
import worker from "./index.ts";
import { invocationLimits } from "./settings.ts";

/** Workers' limit: KV operations per invocation (a bulk read of up to 100 keys is one). */
const WORKERS_KV_OPERATIONS = 1_000;
const TENANT = "acme";
const TTL_SECONDS = 3_600;
/** Past the sign-in's wait for the provider (1 s), within its fetch's deadline (5 s). */
const LATE_MS = 1_500;

let stack: LocalStack;
let sql: Sql;
let provider: IdentityProvider;

beforeAll(async () => {
  stack = await startLocalStack();
  sql = createNeonSql({ databaseUrl: stack.databaseUrl, fetchEndpoint: stack.neonFetchEndpoint });
  provider = await startIdentityProvider();
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await provider?.close();
  await stack?.close();
});

/** A Workers KV namespace binding over the memory store (its list pages and cursors, its bulk read). */
function memoryNamespace(): WorkersKvNamespace {
  const kv = createMemoryKv();
  const get = async (key: string | string[]) => {
    if (!Array.isArray(key)) return kv.get(key);
    const values = await kv.getMany!(key);
    return new Map(key.map((name, i) => [name, values[i] ?? null]));
  };
  return {
    get: get as WorkersKvNamespace["get"],
    put: (key, value, options) => kv.put(key, value, { ttlSeconds: options?.expirationTtl ?? 86_400 }),
    delete: (key) => kv.delete(key),
    async list({ prefix = "", cursor, limit } = {}) {
      const page = await kv.list(prefix, { cursor, limit });
      const keys = page.keys.map((name) => ({ name }));
      return page.cursor === undefined
        ? { keys, list_complete: true }
        : { keys, list_complete: false, cursor: page.cursor };
    },
  };
}

/** `namespace` with its calls counted as Workers count an invocation's (a bulk read is one), and those on the key set apart. */
function counted(namespace: WorkersKvNamespace) {
  const calls: string[] = [];
  const count =
    <A extends unknown[], R>(method: string, call: (...args: A) => Promise<R>) =>
    (...args: A) => {
      calls.push(typeof args[0] === "string" && args[0].startsWith(KEY_SET_KEY_PREFIX) ? `key set ${method}` : method);
      return call(...args);
    };
  const wrapped = {
    get: count("get", (key: string | string[]) => namespace.get(key as string)),
    put: count("put", namespace.put.bind(namespace)),
    delete: count("delete", namespace.delete.bind(namespace)),
    list: count("list", namespace.list.bind(namespace)),
  } as WorkersKvNamespace;
  return {
    namespace: wrapped,
    calls: () => calls.length,
    keySetCalls: () => calls.filter((call) => call.startsWith("key set")),
  };
}

/**
 * A tenant's cache whose resync spends every operation its budget allows: 600 entries, of which
 * only the first listed names a link Postgres has (read, kept) and the others none (read,
 * deleted): pages of 1 + 100 + 99, then 1 + 100 + 100, and a last page that fits what is left.
 */
async function cacheOfOrphans(namespace: WorkersKvNamespace): Promise<void> {
  const cache = createLinkCache(createWorkersKv(namespace), {
    tenantId: TENANT,
    ttlSeconds: TTL_SECONDS,
    logger: silentLogger,
  });
  const links: Link[] = Array.from({ length: 600 }, (_, i) => ({
    provider: "github",
    externalAccountId: `orphan-${i}`,
    userId: `user-${i}`,
    displayName: null,
    linkedAt: new Date().toISOString(),
  }));
  const keyed = await Promise.all(links.map(async (link) => ({ link, key: await linkKey(TENANT, link) })));
  keyed.sort((a, b) => (a.key < b.key ? -1 : 1)); // as the store lists them
  const first = keyed[0]!.link;
  await sql.query(
    `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [TENANT, first.provider, first.externalAccountId, first.userId],
  );
  const written = await mapBounded(keyed, 10, ({ link, key }) => cache.writeEntry(key, link, Date.now()));
  expect(written.every(Boolean)).toBe(true);
}

/** One request to the Workers entry on a fresh isolate; answers once every waitUntil has settled. */
async function invoke(env: object, request: Request): Promise<Response> {
  const pending: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (work: Promise<unknown>) => void pending.push(work),
    passThroughOnException() {},
    props: {},
  };
  const response = await worker.fetch(request, env as never, ctx as never);
  await response.arrayBuffer();
  // What waitUntil keeps alive is part of the invocation, and may add more of it.
  for (let settled = 0; settled < pending.length; settled = pending.length) await Promise.allSettled(pending);
  return new Response(null, { status: response.status });
}

const allow = { limit: async () => ({ success: true }) };

describe("an admin resync on a fresh isolate, signed in through AUTH_JWKS_URL", () => {
  it.each([
    ["at once", 0, ["key set put"]],
    ["late", LATE_MS, ["key set get", "key set put"]],
  ])(
    "makes at most Workers' 1,000 KV operations, sign-in included, when the provider answers %s",
    async (_when, delayMs, signIn) => {
      const real = globalThis.fetch;
      // Only the key set is late: the statements to Postgres leave through fetch too.
      vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
        const url = input instanceof Request ? input.url : String(input);
        if (url === provider.jwksUrl && delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        return real(input, init);
      });
      try {
        // A namespace of its own: nothing kept from another case, the key set included.
        const store = memoryNamespace();
        await cacheOfOrphans(store);
        const { namespace, calls, keySetCalls } = counted(store);
        const env = {
          LINKS: namespace,
          ...stack.settings,
          ...PROVIDER_SETTINGS,
          AUTH_JWKS_URL: provider.jwksUrl,
          LINK_CACHE_TTL_SECONDS: String(TTL_SECONDS),
          RATE_LIMITER_CALLER_READS: allow,
          RATE_LIMITER_CALLER_WRITES: allow,
          RATE_LIMITER_TENANT_READS: allow,
          RATE_LIMITER_TENANT_WRITES: allow,
          RATE_LIMITER_REFUSED_TOKENS: allow,
        };
        const authorization = await provider.bearer({ alg: "ES256", org: TENANT, role: "admin" });
        const response = await invoke(
          env,
          new Request("https://api.test/v1/admin/links/resync", { method: "POST", headers: { authorization } }),
        );
        expect(response.status).toBe(200);
        // The sign-in's own: the key set kept, and read first when the provider was late.
        expect(keySetCalls()).toEqual(signIn);
        // The resync spent every operation of its budget, and the two together stay within Workers' limit.
        expect(calls() - signIn.length).toBe(invocationLimits(env).kvOperations);
        expect(calls()).toBeLessThanOrEqual(WORKERS_KV_OPERATIONS);
      } finally {
        vi.stubGlobal("fetch", real);
      }
    },
    60_000,
  );
});
