import { afterAll, beforeAll, describe } from "vitest";
import { type App, createApp } from "../../core/app.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { type LocalStack, startLocalStack } from "../../dev/local-stack/stack.ts";
import { createTestDatabase, describeWithPostgres } from "../../dev/support/postgres.ts";
import { bearer, TEST_AUTH_SECRET, type TokenClaims } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";
import { requestBody } from "./request-body.ts";

type BackendName = "pglite" | "postgres";

interface HarnessOptions {
  backend: BackendName;
  /** A PostgreSQL URL the caller owns (e.g. through a relay it can cut), instead of a new database. */
  postgresUrl?: string;
  kv?: KvCache;
  poolSize?: number;
  /** How long a statement may wait for a pooled connection behind the endpoint. */
  connectionTimeoutMillis?: number;
  /** The SQL port's per-round-trip deadline. */
  queryTimeoutMs?: number;
  /** Replaces the SQL port's `fetch`. */
  fetchFunction?: typeof fetch;
  logger?: Logger;
  env?: Record<string, string>;
  /** Hands the app an execution context, as Workers and Compute do; `settled()` awaits its waitUntil. */
  waitUntil?: boolean;
}

export interface RequestOptions extends Omit<RequestInit, "body"> {
  /** Claims of the caller's token; `null` sends no Authorization header. */
  as?: TokenClaims | null;
  /** A plain object is sent as JSON; a string as-is. */
  body?: unknown;
}

export interface Harness {
  app: App;
  /** The SQL port the app uses: the app's Neon client → local endpoint → database. */
  sql: Sql;
  kv: KvCache;
  stack: LocalStack;
  request(path: string, options?: RequestOptions): Promise<Response>;
  /** Once what the requests so far left running after their answers (waitUntil) has ended. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** The whole production path in one process: app → Neon client → local endpoint → database. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const database = options.backend === "postgres" && !options.postgresUrl ? await createTestDatabase() : undefined;
  const stack = await startLocalStack({
    databaseUrl: options.postgresUrl ?? database?.url,
    poolSize: options.poolSize,
    connectionTimeoutMillis: options.connectionTimeoutMillis,
  });
  const settings = parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET, ...options.env });
  const sql = createNeonSql({
    databaseUrl: stack.databaseUrl,
    fetchEndpoint: stack.neonFetchEndpoint,
    fetchFunction: options.fetchFunction,
    timeoutMs: options.queryTimeoutMs,
  });
  const kv = options.kv ?? createMemoryKv();
  const app = createApp({ sql, kv, settings, runtime: "node", logger: options.logger ?? silentLogger });

  // As Workers and Compute pass one; what the app keeps alive after an answer is awaitable.
  const pending = new Set<Promise<unknown>>();
  const executionContext = options.waitUntil
    ? {
        waitUntil(work: Promise<unknown>) {
          const tracked: Promise<unknown> = work.catch(() => undefined).finally(() => pending.delete(tracked));
          pending.add(tracked);
        },
        passThroughOnException() {},
        props: {},
      }
    : undefined;

  return {
    app,
    sql,
    kv,
    stack,
    request: async (path, requestOptions = {}) =>
      app.fetch(await buildRequest(path, requestOptions), undefined, executionContext),
    settled: async () => void (await Promise.allSettled(pending)),
    async close() {
      await stack.close();
      await database?.drop();
    },
  };
}

// fetch's Request refuses these methods; servers pass them on, so the app must answer them.
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

export async function buildRequest(path: string, { as = {}, body, headers, ...init }: RequestOptions = {}) {
  const merged = new Headers(headers);
  if (as !== null && !merged.has("authorization")) merged.set("authorization", (await bearer(as)).authorization);
  const payload = requestBody(body, merged);
  const method = init.method?.toUpperCase();
  if (!method || !FORBIDDEN_METHODS.has(method)) {
    return new Request(new URL(path, "http://localhost"), { ...init, headers: merged, body: payload });
  }
  // Built as another method, then read as this one: what the app sees of a request is its fields.
  const carrier = new Request(new URL(path, "http://localhost"), {
    ...init,
    method: payload === undefined ? "GET" : "POST",
    headers: merged,
    body: payload,
  });
  return Object.defineProperty(carrier, "method", { value: method });
}

/**
 * Runs `tests` once on embedded PGlite and once on the real PostgreSQL (skipped loudly without
 * one, failing when CI=true). `harness()` gives the current backend's harness.
 */
export function describeOnBackends(
  name: string,
  tests: (harness: () => Harness, backend: BackendName) => void,
  options: Omit<HarnessOptions, "backend"> = {},
): void {
  for (const backend of ["pglite", "postgres"] as const) {
    const wrap = backend === "postgres" ? describeWithPostgres : describe;
    wrap(`${name} [${backend}]`, () => {
      let current: Harness | undefined;
      beforeAll(async () => {
        current = await startHarness({ ...options, backend });
      }, 120_000);
      afterAll(async () => {
        await current?.close();
      });
      tests(() => {
        if (!current) throw new Error("harness not started");
        return current;
      }, backend);
    });
  }
}
