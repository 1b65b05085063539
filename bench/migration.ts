// `npm run bench:migration`: the migrations that ship, applied by `npm run migrate`'s migrator to
// a PostgreSQL database that holds `--links` links and `--documents` keyed documents, while
// writers keep linking, unlinking and creating documents with the statements of the release
// before (expand, deploy, contract: docs/deploy.md). Reports the longest write stall during the
// migration. PostgreSQL only (DATABASE_URL, or the local one): the run works in a scratch schema
// it drops after. Writes migration.json and migration.md.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { DEFAULT_MAX_LINKS_PER_USER } from "../core/links/link-settings.ts";
import { linkAccount, unlinkAccount } from "../core/links/repository.ts";
import type { Sql } from "../core/ports/sql.ts";
import { DEFAULT_MIGRATIONS_DIR, migrate, migrationFiles, migrationSession } from "../dev/migrate.ts";
import { createPgBackend } from "../dev/neon/pg-backend.ts";
import { runStatement } from "../dev/run-statement.ts";
import { createScratchSchema, LOCAL_POSTGRES_URL, serverVersion } from "../dev/support/scratch-schema.ts";
import { percentile } from "../dev/support/stats.ts";
import {
  benchOptions,
  commandLine,
  machineInfo,
  positiveInt,
  progress,
  runBenchCommand,
  writeResults,
} from "./lib/cli.ts";

const USAGE = `npm run bench:migration -- [options]
  --links N       links in the table before the migration (default 1000000)
  --documents N   keyed documents before the migration (default 100000)
  --writers N     writers running throughout (default 4)
  --from NAME     the first migration applied under load (default 0010_idle_transaction_timeout.sql:
                  the ones this release ships); the earlier ones build the starting schema
  --out DIR       where migration.json and migration.md go (default docs/results)
Database: DATABASE_URL (postgres://…), else ${LOCAL_POSTGRES_URL}; the run uses a scratch schema it drops.`;

// The previous release's document insert (before sql/0011): it must keep working on the new schema.
const PREVIOUS_CREATE_DOCUMENT = `INSERT INTO documents (tenant_id, contract_id, title, idempotency_key, request_fingerprint)
  VALUES ($1, $2, NULL, $3, 'f')`;

function options() {
  const values = benchOptions(USAGE, {
    links: { type: "string" },
    documents: { type: "string" },
    writers: { type: "string" },
    from: { type: "string", default: "0010_idle_transaction_timeout.sql" },
  });
  return {
    links: positiveInt("links", values.links, 1_000_000),
    documents: positiveInt("documents", values.documents, 100_000, 0),
    writers: positiveInt("writers", values.writers, 4),
    from: values.from,
    out: values.out,
  };
}

const poolSql = (pool: pg.Pool): Sql => ({
  query: async (text, params = []) => (await pool.query(text, params as unknown[])).rows,
  transaction: async () => {
    throw new Error("not used");
  },
});

/** A folder with the migrations before `from` (the starting schema), or all of them. */
async function migrationsDir(until?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "bench-migration-"));
  for (const name of await migrationFiles(DEFAULT_MIGRATIONS_DIR)) {
    if (until === undefined || name < until) await copyFile(join(DEFAULT_MIGRATIONS_DIR, name), join(dir, name));
  }
  return dir;
}

/** Writes until `stop()`; every write's latency, and any that failed. */
function startWriter(sql: Sql, writer: number, stop: () => boolean) {
  const latencies: { at: number; ms: number }[] = [];
  const failures: string[] = [];
  const done = (async () => {
    for (let n = 0; !stop(); n++) {
      const started = performance.now();
      try {
        // Links 50 accounts (one per provider), then unlinks them, and again.
        const target = { provider: `p${n % 50}`, externalAccountId: `w${writer}` };
        if (n % 3 === 2) await sql.query(PREVIOUS_CREATE_DOCUMENT, ["bench", `C-${writer}-${n}`, `k-${writer}-${n}`]);
        else if (n % 100 < 50) {
          await linkAccount(sql, {
            ...target,
            tenantId: "bench",
            userId: `w${writer}`,
            displayName: null,
            replaceDisplayName: false,
            maxLinksPerUser: DEFAULT_MAX_LINKS_PER_USER,
          });
        } else await unlinkAccount(sql, "bench", target, `w${writer}`);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
      latencies.push({ at: started, ms: performance.now() - started });
    }
  })();
  return { latencies, failures, done };
}

async function main() {
  const opts = options();
  const server = process.env.DATABASE_URL || LOCAL_POSTGRES_URL;
  const version = await serverVersion(server);
  if (version instanceof Error)
    throw new Error(`PostgreSQL at ${new URL(server).host} is unreachable: ${version.message}`);
  const schema = await createScratchSchema(server, "bench_migration");
  const url = schema.url;
  const pool = new pg.Pool({ connectionString: url, max: opts.writers + 1 });
  const dirs: string[] = [];
  try {
    const before = await migrationsDir(opts.from);
    dirs.push(before);
    const migrator = createPgBackend(migrationSession(url), { max: 1 });
    await migrate(migrator, before);
    progress(`seeding ${opts.links} links and ${opts.documents} keyed documents`);
    // Without the app's statement timeout: a million rows take longer than 5 s here.
    const seed = (statement: string) => runStatement(migrationSession(url), statement);
    await seed(
      `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
       SELECT 'seed', 'github', 'x-' || n, 'u-' || n FROM generate_series(1, ${opts.links}) AS n`,
    );
    await seed(
      `INSERT INTO documents (tenant_id, contract_id, idempotency_key, request_fingerprint)
       SELECT 'seed', 'C', 'k-' || n, 'f' FROM generate_series(1, ${opts.documents}) AS n`,
    );
    await seed("VACUUM ANALYZE linked_external_accounts, documents");

    let stopping = false;
    const sql = poolSql(pool);
    const writers = Array.from({ length: opts.writers }, (_, writer) => startWriter(sql, writer, () => stopping));
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // steady state first
    const all = await migrationsDir();
    dirs.push(all);
    const started = performance.now();
    const applied = await migrate(migrator, all);
    const migrationMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    stopping = true;
    await Promise.all(writers.map((writer) => writer.done));
    await migrator.close();

    const during = writers.flatMap((w) => w.latencies.filter((l) => l.at >= started && l.at <= started + migrationMs));
    const everything = writers.flatMap((w) => w.latencies);
    const result = {
      options: opts,
      applied,
      migrationMs: Math.round(migrationMs),
      writes: everything.length,
      writesDuringMigration: during.length,
      failures: writers.flatMap((w) => w.failures).slice(0, 10),
      failureCount: writers.reduce((sum, w) => sum + w.failures.length, 0),
      longestWriteMs: Math.round(Math.max(...everything.map((l) => l.ms))),
      p99WriteMs:
        Math.round(
          percentile(
            everything.map((l) => l.ms),
            99,
          ) * 10,
        ) / 10,
      machine: await machineInfo(),
    };
    progress(JSON.stringify(result));
    const m = result.machine;
    const markdown = `# Online migrations under steady writes

Command: \`${commandLine("bench:migration")}\` on ${m.cpus} × ${m.cpuModel} (load ${m.loadAverage.join(" ")}), PostgreSQL: ${opts.links} links and ${opts.documents} keyed documents, ${opts.writers} writers linking, unlinking and creating documents with the previous release's statements throughout.

| migrations applied under load | took | writes during it | failed writes | longest write | p99 write |
| ----------------------------- | ---- | ---------------- | ------------- | ------------- | --------- |
| ${applied.join(", ")} | ${(result.migrationMs / 1000).toFixed(1)} s | ${result.writesDuringMigration} | ${result.failureCount} | ${result.longestWriteMs} ms | ${result.p99WriteMs} ms |
`;
    for (const file of await writeResults(opts.out, {
      "migration.json": `${JSON.stringify(result, null, 2)}\n`,
      "migration.md": markdown,
    }))
      progress(`wrote ${file}`);
  } finally {
    await pool.end();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    await schema.drop();
  }
}

await runBenchCommand(USAGE, main);
