// The three problems, each as a naive version and the version this project ships, under the same
// concurrent load. Every request takes the production path (Neon client → local endpoint →
// PostgreSQL), one statement per round trip. The naive versions are raw statements; the safe
// versions are the app's own HTTP handlers (createApp), so what is counted is what ships.
import type pg from "pg";
import type { Sql } from "../../core/ports/sql.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import type { Api } from "./api.ts";

type ProblemName = "links" | "numbering" | "assets";
export const problemNames: ProblemName[] = ["links", "numbering", "assets"];

export interface ProblemLoad {
  /** Accounts, tenants or assets raced on. */
  targets: number;
  /** Concurrent requests per target. */
  contenders: number;
}

interface RaceContext {
  /** The SQL port (Neon client) the naive versions send their statements through. */
  sql: Sql;
  /** The app, in-process, over the same SQL port. */
  api: Api;
  /** Plain connections for the checks after each race. */
  pool: pg.Pool;
}

export interface ProblemResult {
  problem: ProblemName;
  variant: "naive" | "safe";
  how: string;
  attempts: number;
  /** Requests told "done" (201 / 200). */
  succeeded: number;
  /** Requests correctly told no: 409 owned by someone else; for assets, the 412s a client retried. */
  refused: number;
  /** Requests that failed: because another ran at the same time, or with an unexpected answer. */
  failed: number;
  /** What the failures were ("23505", "HTTP 500", …). */
  failures: Record<string, number>;
  violation: string;
  violations: number;
  elapsedMs: number;
}

type Outcome = "succeeded" | "refused" | { failed: string };
type Contender = (target: number, contender: number) => Promise<Outcome>;

/** Every contender of every target at once: the same load for both variants. */
async function race(load: ProblemLoad, contender: Contender) {
  const counts = { attempts: 0, succeeded: 0, refused: 0, failed: 0, failures: {} as Record<string, number> };
  const settle = (outcome: Outcome) => {
    if (typeof outcome === "string") return void counts[outcome]++;
    counts.failed++;
    counts.failures[outcome.failed] = (counts.failures[outcome.failed] ?? 0) + 1;
  };
  const started = performance.now();
  const runs: Promise<void>[] = [];
  for (let target = 0; target < load.targets; target++) {
    for (let c = 0; c < load.contenders; c++) {
      counts.attempts++;
      runs.push(contender(target, c).then(settle, (error: unknown) => settle({ failed: errorKind(error) })));
    }
  }
  await Promise.all(runs);
  return { ...counts, elapsedMs: performance.now() - started };
}

const errorKind = (error: unknown) =>
  (error as { code?: string } | null)?.code ?? (error instanceof Error ? error.name : "error");
const httpFailure = (response: Response): Outcome => ({ failed: `HTTP ${response.status}` });

// --- Links: one external account, one owner ---

const OWNERS_BEYOND_FIRST = (table: string) => `
SELECT coalesce(sum(owners - 1), 0)::int AS extra FROM (
  SELECT count(DISTINCT user_id) AS owners FROM ${table} GROUP BY lower(provider), external_account_id
) per_account`;

/** Reads the KV cache, and links when it holds no owner: a check-then-act across two stores. */
async function linksNaive({ sql, pool }: RaceContext, load: ProblemLoad): Promise<ProblemResult> {
  const kv = createMemoryKv();
  const counts = await race(load, async (account, user) => {
    const key = `link:github:acct-${account}`;
    if ((await kv.get(key)) !== null) return "refused";
    await sql.query("INSERT INTO race_naive_links (provider, external_account_id, user_id) VALUES ('github', $1, $2)", [
      `acct-${account}`,
      `user-${account}-${user}`,
    ]);
    await kv.put(key, `user-${account}-${user}`, { ttlSeconds: 300 });
    return "succeeded";
  });
  const extra = await scalar(pool, OWNERS_BEYOND_FIRST("race_naive_links"));
  return {
    problem: "links",
    variant: "naive",
    how: "KV says free → INSERT",
    violation: "duplicate owners",
    violations: extra,
    ...counts,
  };
}

/** PUT /v1/links/…: one INSERT, the unique index is the judge, the KV only a cache. */
async function linksSafe({ api, pool }: RaceContext, load: ProblemLoad): Promise<ProblemResult> {
  const counts = await race(load, async (account, user) => {
    const response = await api("PUT", `/v1/links/github/acct-${account}`, {
      sub: `user-${account}-${user}`,
      tid: "race",
    });
    await response.body?.cancel();
    if (response.status === 201) return "succeeded";
    if (response.status === 409) return "refused";
    return httpFailure(response);
  });
  const extra = await scalar(pool, OWNERS_BEYOND_FIRST("linked_external_accounts"));
  return {
    problem: "links",
    variant: "safe",
    how: "the app's PUT /v1/links (unique index)",
    violation: "duplicate owners",
    violations: extra,
    ...counts,
  };
}

// --- Numbering: consecutive per-tenant numbers ---

export const MAX_PLUS_ONE = (table: string) => `
INSERT INTO ${table} (tenant_id, doc_number, contract_id)
SELECT $1, coalesce(max(doc_number), 0) + 1, $2 FROM ${table} WHERE tenant_id = $1`;

/** `max() + 1` in one statement: concurrent snapshots read the same max, the unique key refuses. */
async function numberingNaive({ sql, pool }: RaceContext, load: ProblemLoad): Promise<ProblemResult> {
  const counts = await race(load, async (tenant, c) => {
    await sql.query(MAX_PLUS_ONE("race_naive_documents"), [`tenant-${tenant}`, `contract-${c}`]);
    return "succeeded";
  });
  const duplicateKey = counts.failures["23505"] ?? 0;
  const broken = await gaplessViolations(pool, "race_naive_documents");
  return {
    problem: "numbering",
    variant: "naive",
    how: "INSERT … SELECT max()+1",
    violation: "duplicate-key failures or gaps",
    violations: duplicateKey + broken,
    ...counts,
  };
}

/** POST /v1/documents: the trigger numbers the row under the tenant's counter-row lock. */
async function numberingSafe({ api, pool }: RaceContext, load: ProblemLoad): Promise<ProblemResult> {
  const counts = await race(load, async (tenant, c) => {
    const response = await api(
      "POST",
      "/v1/documents",
      { sub: `user-${c}`, tid: `tenant-${tenant}` },
      { body: { contractId: `contract-${c}` } },
    );
    await response.body?.cancel();
    return response.status === 201 ? "succeeded" : httpFailure(response);
  });
  // A gap or a duplicate would be a violation too: a correct run has neither.
  const broken = await gaplessViolations(pool, "documents");
  return {
    problem: "numbering",
    variant: "safe",
    how: "the app's POST /v1/documents (counter row)",
    violation: "duplicate-key failures or gaps",
    violations: counts.failed + broken,
    ...counts,
  };
}

/** Tenants whose numbers are not exactly 1..n. */
export async function gaplessViolations(pool: pg.Pool, table: string): Promise<number> {
  return scalar(
    pool,
    `SELECT count(*)::int FROM (SELECT tenant_id FROM ${table} GROUP BY tenant_id
     HAVING count(*) <> max(doc_number) OR count(DISTINCT doc_number) <> count(*) OR min(doc_number) <> 1) broken`,
  );
}

// --- Assets: read-modify-write without losing a write ---

export const MAX_CONTENDERS = 40; // each writer appends " wN" to a material of at most 200 characters
const MAX_CAS_ATTEMPTS = 100;

/** Each writer appends its own token to the asset's material: a lost write loses its token. */
async function assetsRace({ pool }: RaceContext, load: ProblemLoad, tenant: string, write: Contender) {
  await pool.query(
    "INSERT INTO assets (tenant_id, id, name, material) SELECT $1, 'asset-' || g, 'race', 'w' FROM generate_series(0, $2::int - 1) g",
    [tenant, load.targets],
  );
  const counts = await race(load, write);
  // Tokens beyond the seed "w" that made it into the final materials.
  const kept = await scalar(
    pool,
    "SELECT coalesce(sum(cardinality(string_to_array(material, ' ')) - 1), 0)::int FROM assets WHERE tenant_id = $1",
    [tenant],
  );
  return { counts, lost: counts.succeeded - kept };
}

/** GET, then an unconditional UPDATE: the last writer silently wins. */
async function assetsNaive(context: RaceContext, load: ProblemLoad): Promise<ProblemResult> {
  const tenant = "race-naive";
  const { sql } = context;
  const { counts, lost } = await assetsRace(context, load, tenant, async (asset, writer) => {
    const id = `asset-${asset}`;
    const [row] = await sql.query("SELECT material FROM assets WHERE tenant_id = $1 AND id = $2", [tenant, id]);
    const material = `${String(row?.material)} w${writer}`;
    await sql.query("UPDATE assets SET material = $3 WHERE tenant_id = $1 AND id = $2", [tenant, id, material]);
    return "succeeded";
  });
  return {
    problem: "assets",
    variant: "naive",
    how: "GET → unconditional UPDATE",
    violation: "lost updates",
    violations: lost,
    ...counts,
  };
}

/** The app's GET, then PATCH with If-Match; on 412 the client re-reads and retries. */
async function assetsSafe(context: RaceContext, load: ProblemLoad): Promise<ProblemResult> {
  const tenant = "race-safe";
  const { api } = context;
  let conflicts = 0;
  const { counts, lost } = await assetsRace(context, load, tenant, async (asset, writer) => {
    const path = `/v1/assets/asset-${asset}`;
    const as = { sub: `writer-${writer}`, tid: tenant };
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const read = await api("GET", path, as);
      if (read.status !== 200) return httpFailure(read);
      const { material } = (await read.json()) as { material: string };
      const headers = { "if-match": read.headers.get("etag") ?? "" };
      const write = await api("PATCH", path, as, { body: { material: `${material} w${writer}` }, headers });
      await write.body?.cancel();
      if (write.status === 200) return "succeeded";
      if (write.status !== 412) return httpFailure(write);
      conflicts++; // 412: nothing was overwritten; merge into the newer version and retry
    }
    return { failed: "gave up after 412s" };
  });
  return {
    problem: "assets",
    variant: "safe",
    how: "the app's GET → PATCH If-Match (retry on 412)",
    violation: "lost updates",
    violations: lost,
    ...counts,
    refused: conflicts,
  };
}

async function scalar(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pool.query(sql, params);
  return Number(Object.values(rows[0] ?? { value: 0 })[0]);
}

type Variant = (context: RaceContext, load: ProblemLoad) => Promise<ProblemResult>;

export const problems: Record<ProblemName, { naive: Variant; safe: Variant }> = {
  links: { naive: linksNaive, safe: linksSafe },
  numbering: { naive: numberingNaive, safe: numberingSafe },
  assets: { naive: assetsNaive, safe: assetsSafe },
};
