// `npm run bench:migration`: the migrations that ship, applied by `npm run migrate`'s migrator to
// a PostgreSQL database that holds `--links` links and `--documents` keyed documents, while
// writers keep linking, unlinking and creating documents (expand, deploy, contract:
// docs/deploy.md). From the schema before tenants (the default, sql/0006 on), the writers run the
// link statements of the release before tenants for as long as the schema takes them, and those of
// this release once sql/0013 refuses them: what a deployment runs before and after its new release
// is out. Reports the longest write stall during the migration, which file was running then, and
// the failed writes. PostgreSQL only (DATABASE_URL, or the local one): the run works in a scratch
// schema it drops after. Writes migration.json and migration.md.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { FIRST_TENANT_MIGRATION } from "../dev/support/links-before-tenants.ts";
import { poolSql } from "../dev/support/pool-sql.ts";
import { createScratchSchema, LOCAL_POSTGRES_URL, serverVersion } from "../dev/support/scratch-schema.ts";
import { percentile } from "../dev/support/stats.ts";
import { DEFAULT_MIGRATIONS_DIR, migrate, migrationFiles } from "../edge/migrate/migrate.ts";
import { postgresMigrationSession } from "../edge/migrate/postgres.ts";
import {
  benchOptions,
  bounds,
  commandLine,
  machineInfo,
  OUT_HELP,
  progress,
  runBenchCommand,
  SetupError,
  UsageError,
  type WholeNumber,
  wholeNumber,
  writeResults,
} from "./lib/cli.ts";
import { BEFORE_TENANTS, startWriter, withTenants } from "./migration/writers.ts";

/** The whole-number options: their bounds and defaults. */
const NUMBERS = {
  links: { min: 1, default: 1_000_000 },
  documents: { min: 0, default: 100_000 },
  writers: { min: 1, default: 4 },
} satisfies Record<string, WholeNumber>;

const USAGE = `npm run bench:migration -- [options]
  --links N       links in the table before the migration ${bounds(NUMBERS.links)}
  --documents N   keyed documents before the migration ${bounds(NUMBERS.documents)}
  --writers N     writers running throughout ${bounds(NUMBERS.writers)}
  --from NAME     the first migration applied under load (default ${FIRST_TENANT_MIGRATION}: every
                  one since the schema before tenants); the earlier ones build the starting schema
  --migrations DIR  the migrations to apply (default sql/), e.g. an earlier release's, to compare
  --out DIR       where migration.json and migration.md go (${OUT_HELP})
Database: DATABASE_URL (postgres://…), else ${LOCAL_POSTGRES_URL}; the run uses a scratch schema it drops.`;

function options() {
  const values = benchOptions(USAGE, {
    links: { type: "string" },
    documents: { type: "string" },
    writers: { type: "string" },
    from: { type: "string", default: FIRST_TENANT_MIGRATION },
    migrations: { type: "string" },
  });
  return {
    links: wholeNumber("links", values.links, NUMBERS.links),
    documents: wholeNumber("documents", values.documents, NUMBERS.documents),
    writers: wholeNumber("writers", values.writers, NUMBERS.writers),
    from: values.from,
    migrations: values.migrations,
    out: values.out,
  };
}

/** A folder with the migrations of `source` before `until` (the starting schema), or all of them. */
async function migrationsDir(source: string, until?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "bench-migration-"));
  for (const name of await migrationFiles(source)) {
    if (until === undefined || name < until) await copyFile(join(source, name), join(dir, name));
  }
  return dir;
}

/** Seeds the links and documents the migration finds, in the starting schema's own shape. */
async function seed(url: string, links: number, documents: number, tenants: boolean) {
  // Without the app's statement timeout: a million rows take longer than 5 s here.
  const session = postgresMigrationSession(url);
  try {
    await seedRows(session.exec, links, documents, tenants);
  } finally {
    await session.close();
  }
}

async function seedRows(run: (statement: string) => Promise<void>, links: number, documents: number, tenants: boolean) {
  await run(
    tenants
      ? `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
         SELECT 'seed', 'github', 'x-' || n, 'u-' || n FROM generate_series(1, ${links}) AS n`
      : `INSERT INTO linked_external_accounts (provider, external_account_id, user_id)
         SELECT 'github', 'x-' || n, 'u-' || n FROM generate_series(1, ${links}) AS n`,
  );
  await run(
    `INSERT INTO documents (tenant_id, contract_id, idempotency_key, request_fingerprint)
     SELECT 'seed', 'C', 'k-' || n, 'f' FROM generate_series(1, ${documents}) AS n`,
  );
  await run("VACUUM ANALYZE linked_external_accounts, documents");
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

async function main() {
  const opts = options();
  const source = opts.migrations ?? DEFAULT_MIGRATIONS_DIR;
  const files = await migrationFiles(source).catch((): string[] => []);
  if (files.length === 0) throw new UsageError("--migrations must name a folder of NNNN_name.sql files");
  if (!files.includes(opts.from))
    throw new UsageError(`--from must name a file of the migrations, e.g. ${FIRST_TENANT_MIGRATION}`);
  const server = process.env.DATABASE_URL || LOCAL_POSTGRES_URL;
  const version = await serverVersion(server);
  if (version instanceof Error)
    throw new SetupError(`PostgreSQL at ${new URL(server).host} is unreachable: ${version.message}`);
  const schema = await createScratchSchema(server, "bench_migration");
  const url = schema.url;
  const pool = new pg.Pool({ connectionString: url, max: opts.writers + 1 });
  pool.on("error", (error) => progress(`a writer's idle connection failed: ${error.message}`));
  const migrator = postgresMigrationSession(url);
  const dirs: string[] = [];
  // Stopped whatever happens: a writer left running on an ended pool would fail without end.
  let stopping = false;
  let writers: ReturnType<typeof startWriter>[] = [];
  try {
    const before = await migrationsDir(source, opts.from);
    dirs.push(before);
    await migrate(migrator, before);
    const beforeTenants = opts.from <= FIRST_TENANT_MIGRATION;
    progress(`seeding ${opts.links} links and ${opts.documents} keyed documents`);
    await seed(url, opts.links, opts.documents, !beforeTenants);

    const sql = poolSql(pool);
    const release = beforeTenants ? BEFORE_TENANTS : withTenants("bench");
    writers = Array.from({ length: opts.writers }, (_, writer) => startWriter(sql, writer, release, () => stopping));
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // steady state first
    const all = await migrationsDir(source);
    dirs.push(all);
    const started = performance.now();
    const ends: { name: string; at: number }[] = [];
    const applied = await migrate(migrator, all, { onApplied: (name) => ends.push({ name, at: performance.now() }) });
    const migrationMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    stopping = true;
    await Promise.all(writers.map((writer) => writer.done));

    /** The file being applied when a write started (or "before"/"after" the migration). */
    const runningAt = (at: number) =>
      at < started ? "before the migration" : (ends.find((end) => at <= end.at)?.name ?? "after the migration");
    const everything = writers.flatMap((w) => w.latencies);
    const during = everything.filter((l) => l.at >= started && l.at <= started + migrationMs);
    const longest = everything.reduce((a, b) => (b.ms > a.ms ? b : a));
    const refusals = writers.map((w) => w.refusedAt()).filter((at) => at !== undefined);
    const { out: _out, ...shown } = opts; // where the results go is no result (and names a local path)
    const result: Summary & Record<string, unknown> = {
      options: shown,
      postgres: version,
      applied,
      files: ends.map((end, i) => ({ name: end.name, ms: Math.round(end.at - (ends[i - 1]?.at ?? started)) })),
      migrationMs: Math.round(migrationMs),
      writes: everything.length,
      writesDuringMigration: during.length,
      failures: writers.flatMap((w) => w.failures.first).slice(0, 10),
      failureCount: writers.reduce((sum, w) => sum + w.failures.count, 0),
      longestWriteMs: Math.round(longest.ms),
      longestWriteDuring: runningAt(longest.at),
      p99WriteMs: round1(
        percentile(
          everything.map((l) => l.ms),
          99,
        ),
      ),
      p99WriteDuringMigrationMs: round1(
        percentile(
          during.map((l) => l.ms),
          99,
        ),
      ),
      // When each writer of the release before tenants was refused and moved on to this release's.
      releaseBeforeTenantsRefused: refusals.map((at) => ({ atMs: Math.round(at - started), during: runningAt(at) })),
      machine: await machineInfo(),
    };
    progress(JSON.stringify(result));
    for (const file of await writeResults(opts.out, {
      "migration.json": `${JSON.stringify(result, null, 2)}\n`,
      "migration.md": markdown(result, beforeTenants),
    }))
      progress(`wrote ${file}`);
  } finally {
    stopping = true;
    await Promise.all(writers.map((writer) => writer.done));
    await migrator.close();
    await pool.end();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    await schema.drop();
  }
}

interface Summary {
  options: Omit<ReturnType<typeof options>, "out">;
  postgres: string;
  applied: string[];
  files: { name: string; ms: number }[];
  migrationMs: number;
  writesDuringMigration: number;
  failureCount: number;
  longestWriteMs: number;
  longestWriteDuring: string;
  p99WriteDuringMigrationMs: number;
  releaseBeforeTenantsRefused: { atMs: number; during: string }[];
  machine: Awaited<ReturnType<typeof machineInfo>>;
}

function markdown(result: Summary, beforeTenants: boolean): string {
  const { options: o, machine: m } = result;
  const links = beforeTenants
    ? "linking and unlinking with the statements of the release before tenants until the schema refuses them, then with this release's"
    : "linking and unlinking with this release's statements";
  const refusedAt = result.releaseBeforeTenantsRefused.map((r) => (r.atMs / 1000).toFixed(2));
  const refusedDuring = [...new Set(result.releaseBeforeTenantsRefused.map((r) => r.during))].join(", ");
  return `# Online migrations under steady writes

Command: \`${commandLine("bench:migration")}\` on ${m.cpus} × ${m.cpuModel} (load ${m.loadAverage.join(" ")}), PostgreSQL ${result.postgres}: ${o.links} links and ${o.documents} keyed documents, ${o.writers} writers ${links}, and creating documents with the insert of the release before sql/0011, throughout.

| migrations applied under load | took | writes during it | failed writes | longest write (when) | p99 write during it |
| ----------------------------- | ---- | ---------------- | ------------- | -------------------- | ------------------- |
| ${result.applied[0] ?? "none"} to ${result.applied.at(-1) ?? "none"} (${result.applied.length}) | ${(result.migrationMs / 1000).toFixed(1)} s | ${result.writesDuringMigration} | ${result.failureCount} | ${result.longestWriteMs} ms (${result.longestWriteDuring}) | ${result.p99WriteDuringMigrationMs} ms |

| file | took |
| ---- | ---- |
${result.files.map((file) => `| ${file.name} | ${file.ms} ms |`).join("\n")}
${refusedAt.length > 0 ? `\nThe schema refused the link writes of the release before tenants (each writer then moved on to this release's) ${refusedAt.join(", ")} s after the migration started (during: ${refusedDuring}).\n` : ""}`;
}

await runBenchCommand(USAGE, main);
