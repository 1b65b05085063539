// Numbering throughput: how many gapless numbers per second each strategy allocates, on one hot
// tenant (every request queues on the same lock) and spread over many tenants. Each allocation is
// ONE round trip from a dedicated connection: the transactional strategies send
// "BEGIN; …; COMMIT" as one simple-protocol message, as a Neon HTTP batch would, so no strategy
// holds its lock across a client round trip. The ceiling is a bare single-row
// UPDATE … RETURNING: the same row lock and commit, with no document written.
import type pg from "pg";
import { MAX_PLUS_ONE, gaplessViolations } from "./problems.ts";

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
const fill = (statement: string, tenant: string) => statement.replaceAll("$1", () => tenant).replaceAll("$2", () => "'c'");

// Retried: a serialization failure, or the unique key refusing a number SSI let through.
const RETRYABLE = new Set(["40001", "40P01", "23505"]);

const strategies: Record<StrategyName, Strategy> = {
  "sequence-row": {
    how: "the app's INSERT; trigger upserts the tenant's counter row (sql/0003)",
    table: "documents",
    async allocate(client, tenant) {
      await client.query(`INSERT INTO documents (tenant_id, contract_id) VALUES (${literal(client, tenant)}, 'c') RETURNING doc_number`);
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
  await pool.query("INSERT INTO race_counters (tenant_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING", [["hot", ...many]]);
  return scenarios;
}

/** `workers` connections allocate for `durationMs`; worker w takes tenants w, w+workers, … in turn. */
export async function runStrategy(
  pool: pg.Pool,
  name: StrategyName,
  scenario: ScenarioName,
  tenants: readonly string[],
  load: NumberingLoad,
): Promise<NumberingRun> {
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
  const seconds = (performance.now() - started) / 1000;
  return { strategy: name, scenario, allocations, retries, errors, perSecond: allocations / seconds };
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
