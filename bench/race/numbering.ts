// Numbering throughput: how many gapless numbers per second each strategy allocates, on one hot
// tenant (every request queues on the same lock) and spread over many tenants. Each allocation is
// ONE round trip from a dedicated connection: the transactional strategies send
// "BEGIN; …; COMMIT" as one simple-protocol message, as a Neon HTTP batch would, so no strategy
// holds its lock across a client round trip. The ceiling is a bare single-row
// UPDATE … RETURNING: the same row lock and commit, with no document written.
import type pg from "pg";
import { gaplessViolations, MAX_PLUS_ONE } from "./problems.ts";

export type StrategyName = "sequence-row" | "advisory-lock" | "serializable" | "ceiling";
export const strategyNames: StrategyName[] = ["sequence-row", "advisory-lock", "serializable", "ceiling"];
export type ScenarioName = "hot tenant" | "many tenants";

interface Strategy {
  how: string;
  /** The table whose numbers must come out gapless (none for the ceiling). */
  table?: string;
  /** One allocation; returns how many times it had to retry. */
  allocate(client: pg.PoolClient, tenant: string): Promise<number>;
}

const literal = (client: pg.PoolClient, text: string) => client.escapeLiteral(text);

// The simple protocol takes no parameters: the (escaped) tenant goes into the text. A function
// replacement, so "$" in a value is never read as a replacement pattern.
const fill = (statement: string, tenant: string) =>
  statement.replaceAll("$1", () => tenant).replaceAll("$2", () => "'c'");

// Retried: a serialization failure, or the unique key refusing a number SSI let through.
const RETRYABLE = new Set(["40001", "40P01", "23505"]);

const strategies: Record<StrategyName, Strategy> = {
  "sequence-row": {
    how: "the app's INSERT; trigger increments the tenant's counter row once (sql/0005)",
    table: "documents",
    async allocate(client, tenant) {
      await client.query(
        `INSERT INTO documents (tenant_id, contract_id) VALUES (${literal(client, tenant)}, 'c') RETURNING doc_number`,
      );
      return 0;
    },
  },
  "advisory-lock": {
    how: "BEGIN; pg_advisory_xact_lock(hashtext(tenant)); INSERT … max()+1; COMMIT",
    table: "race_advisory_documents",
    async allocate(client, tenant) {
      const t = literal(client, tenant);
      const insert = fill(MAX_PLUS_ONE("race_advisory_documents"), t);
      await inTransaction(client, `BEGIN; SELECT pg_advisory_xact_lock(hashtext(${t})); ${insert}; COMMIT;`);
      return 0;
    },
  },
  serializable: {
    how: "BEGIN ISOLATION LEVEL SERIALIZABLE; INSERT … max()+1; COMMIT — retried until it commits",
    table: "race_serializable_documents",
    async allocate(client, tenant) {
      const insert = fill(MAX_PLUS_ONE("race_serializable_documents"), literal(client, tenant));
      for (let retries = 0; ; retries++) {
        try {
          await inTransaction(client, `BEGIN ISOLATION LEVEL SERIALIZABLE; ${insert}; COMMIT;`);
          return retries;
        } catch (error) {
          if (!RETRYABLE.has((error as { code?: string }).code ?? "")) throw error;
        }
      }
    },
  },
  ceiling: {
    how: "UPDATE race_counters SET n = n + 1 … RETURNING n (no document)",
    async allocate(client, tenant) {
      await client.query(`UPDATE race_counters SET n = n + 1 WHERE tenant_id = ${literal(client, tenant)} RETURNING n`);
      return 0;
    },
  },
};

/** A failed multi-statement message leaves its transaction open and aborted: roll it back. */
async function inTransaction(client: pg.PoolClient, script: string): Promise<void> {
  try {
    await client.query(script);
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  }
}

export interface NumberingLoad {
  /** Concurrent connections, each allocating in a loop. */
  workers: number;
  durationMs: number;
  /** Tenants of the "many tenants" scenario. */
  tenants: number;
}

export interface NumberingRun {
  round: number;
  strategy: StrategyName;
  scenario: ScenarioName;
  allocations: number;
  retries: number;
  errors: number;
  perSecond: number;
}

/** Tenants of a scenario; counter rows exist for all of them, so the ceiling never inserts. */
export async function prepareScenarios(pool: pg.Pool, load: NumberingLoad): Promise<Record<ScenarioName, string[]>> {
  const many = Array.from({ length: load.tenants }, (_, i) => `tenant-${String(i).padStart(3, "0")}`);
  const scenarios = { "hot tenant": ["hot"], "many tenants": many };
  await pool.query("INSERT INTO race_counters (tenant_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING", [
    ["hot", ...many],
  ]);
  return scenarios;
}

/**
 * One round of one scenario: every strategy gets `durationMs`, cut into `slices` that take turns
 * (A B C D A B C D …, the order rotated by round), so a noisy neighbour or a checkpoint lands on
 * all of them alike and the ratios taken within the round stay fair.
 */
export async function interleavedRound(
  pool: pg.Pool,
  scenario: ScenarioName,
  tenants: readonly string[],
  load: NumberingLoad,
  at: { round: number; slices: number },
): Promise<NumberingRun[]> {
  const order = strategyNames.map((_, i) => strategyNames[(i + at.round - 1) % strategyNames.length]!);
  const slice = { ...load, durationMs: Math.max(1, Math.round(load.durationMs / at.slices)) };
  const totals = new Map(order.map((name) => [name, { allocations: 0, retries: 0, errors: 0, ms: 0 }]));
  for (let i = 0; i < at.slices; i++) {
    for (const name of order) {
      const part = await runSlice(pool, name, tenants, slice);
      const total = totals.get(name)!;
      total.allocations += part.allocations;
      total.retries += part.retries;
      total.errors += part.errors;
      total.ms += part.ms;
    }
  }
  return order.map((name) => {
    const { allocations, retries, errors, ms } = totals.get(name)!;
    return {
      round: at.round,
      strategy: name,
      scenario,
      allocations,
      retries,
      errors,
      perSecond: allocations / (ms / 1000),
    };
  });
}

/** `workers` connections allocate for `durationMs`; worker w takes tenants w, w+workers, … in turn. */
export async function runStrategy(
  pool: pg.Pool,
  name: StrategyName,
  scenario: ScenarioName,
  tenants: readonly string[],
  load: NumberingLoad,
): Promise<NumberingRun> {
  const { allocations, retries, errors, ms } = await runSlice(pool, name, tenants, load);
  return { round: 0, strategy: name, scenario, allocations, retries, errors, perSecond: allocations / (ms / 1000) };
}

async function runSlice(pool: pg.Pool, name: StrategyName, tenants: readonly string[], load: NumberingLoad) {
  const strategy = strategies[name];
  const clients = await Promise.all(Array.from({ length: load.workers }, () => pool.connect()));
  let allocations = 0;
  let retries = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + load.durationMs;
  try {
    await Promise.all(
      clients.map(async (client, worker) => {
        for (let i = worker; performance.now() < deadline; i += load.workers) {
          try {
            retries += await strategy.allocate(client, tenants[i % tenants.length]!);
            allocations++;
          } catch {
            errors++;
          }
        }
      }),
    );
  } finally {
    for (const client of clients) client.release();
  }
  return { allocations, retries, errors, ms: performance.now() - started };
}

export const strategyHow = (name: StrategyName) => strategies[name].how;

/** Tenants with a gap or a duplicate in each strategy's table, after all rounds. */
export async function numberingViolations(pool: pg.Pool): Promise<Partial<Record<StrategyName, number>>> {
  const result: Partial<Record<StrategyName, number>> = {};
  for (const name of strategyNames) {
    const table = strategies[name].table;
    if (table) result[name] = await gaplessViolations(pool, table);
  }
  return result;
}
