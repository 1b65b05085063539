// `npm run bench:sync`: how fast one deployment syncs a backlog of the link change feed, per
// runtime, through the admin sync route (each call one invocation, within the platform's budget:
// Workers 1,000 KV operations, Fastly 28 statements), and how long until the feed is back under
// its retention bound. Each runtime gets a fresh database holding the same backlog: `--changes`
// new changes (of which `--stale` name entries the deployment has cached, whose links are gone,
// so the sync must delete them) and `--old` changes past the retention, which the housekeeping
// must prune. Writes sync.json and sync.md.
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Sql } from "../core/ports/sql.ts";
import { launchRuntime, type RunningRuntime, type RuntimeName, runtimeNames } from "../dev/launchers/index.ts";
import { signToken } from "../dev/support/tokens.ts";
import { createNeonSql } from "../edge/neon/neon-sql.ts";
import {
  benchOptions,
  bounds,
  machineInfo,
  muteStdout,
  OUT_HELP,
  progress,
  runBenchCommand,
  selection,
  UsageError,
  type WholeNumber,
  wholeNumber,
  writeResults,
} from "./lib/cli.ts";
import { type BenchDatabase, guardProcess, openBenchDatabase } from "./load/environment.ts";
import { type SyncResult, syncJson, syncMarkdown } from "./sync/report.ts";

/** The whole-number options: their bounds and defaults. */
const NUMBERS = {
  changes: { min: 1, default: 100_000 },
  stale: { min: 0, default: 1_000 },
  old: { min: 0, default: 100_000 },
} satisfies Record<string, WholeNumber>;

const USAGE = `npm run bench:sync -- [options]
  --changes N     new changes in the backlog ${bounds(NUMBERS.changes)}
  --stale N       of those, changes naming entries the deployment cached, at most --changes ${bounds(NUMBERS.stale)}
  --old N         changes past the feed's retention, to be pruned ${bounds(NUMBERS.old)}
  --runtimes LIST ${runtimeNames.join(",")} (default: all)
  --out DIR       where sync.json and sync.md go (${OUT_HELP})
Database: DATABASE_URL (postgres://…, a scratch schema per runtime, dropped after), else PGlite.`;

const TENANT = "sync";
const GIVE_UP_MS = 600_000;

function options() {
  const values = benchOptions(USAGE, {
    changes: { type: "string" },
    stale: { type: "string" },
    old: { type: "string" },
    runtimes: { type: "string" },
  });
  const changes = wholeNumber("changes", values.changes, NUMBERS.changes);
  const stale = wholeNumber("stale", values.stale, NUMBERS.stale);
  // The stale changes are among the new ones: more could not all be named, nor all removed.
  if (stale > changes) throw new UsageError(`--stale ${stale} is more than --changes ${changes}: it counts among them`);
  return {
    changes,
    stale,
    old: wholeNumber("old", values.old, NUMBERS.old),
    runtimes: selection<RuntimeName>("runtimes", values.runtimes, runtimeNames),
    out: values.out,
  };
}

type Options = ReturnType<typeof options>;

const count = async (sql: Sql, where: string) =>
  Number((await sql.query(`SELECT count(*) AS n FROM link_changes WHERE ${where}`))[0]?.n);

/** Whether every change of the feed lies below the horizon a sync reads up to. */
const belowHorizon = async (sql: Sql) =>
  (await sql.query("SELECT pg_snapshot_xmin(pg_current_snapshot()) > (SELECT max(txid) FROM link_changes) AS below"))[0]
    ?.below === true;

/** Links the deployment caches (read through it), then loses, and the backlog naming them among others. */
async function seedBacklog(sql: Sql, url: string, authorization: string, opts: Options) {
  await sql.query(
    `INSERT INTO link_changes (tenant_id, provider, external_account_id, changed_at)
     SELECT $1, 'bench', 'old-' || n, now() - interval '2 hours' FROM generate_series(1, $2::int) AS n`,
    [TENANT, String(opts.old)],
  );
  await sql.query(
    `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
     SELECT $1, 'bench', 's-' || n, 'u-' || n FROM generate_series(1, $2::int) AS n`,
    [TENANT, String(opts.stale)],
  );
  const statuses = await lookUpStale(url, authorization, opts.stale);
  const failed = statuses.findIndex((status) => status !== 200);
  if (failed >= 0) throw new Error(`caching s-${failed + 1}: ${statuses[failed]}`);
  await sql.query("DELETE FROM linked_external_accounts WHERE tenant_id = $1", [TENANT]);
  await sql.query(
    `INSERT INTO link_changes (tenant_id, provider, external_account_id)
     SELECT $1, 'bench', CASE WHEN n % $3::int = 0 AND n / $3::int <= $4::int THEN 's-' || (n / $3::int) ELSE 'n-' || n END
     FROM generate_series(1, $2::int) AS n`,
    [
      TENANT,
      String(opts.changes),
      String(Math.max(1, Math.floor(opts.changes / Math.max(1, opts.stale)))),
      String(opts.stale),
    ],
  );
}

/** Looks up each stale link (`s-1`…), 20 at a time: each answer's status, in order. */
async function lookUpStale(url: string, authorization: string, stale: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let n = 1; n <= stale; n += 20) {
    const batch = Array.from({ length: Math.min(20, stale - n + 1) }, (_, i) => `s-${n + i}`);
    const answers = await Promise.all(
      batch.map(async (id) => {
        const response = await fetch(`${url}/v1/links/bench/${id}`, { headers: { authorization } });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    statuses.push(...answers);
  }
  return statuses;
}

async function syncOnce(runtime: RuntimeName, db: BenchDatabase, opts: Options, running: RunningRuntime[]) {
  const secret = randomBytes(32).toString("hex");
  const env = {
    ...process.env,
    AUTH_SECRET: secret,
    DATABASE_URL: db.databaseUrl,
    NEON_FETCH_ENDPOINT: db.neonFetchEndpoint,
    LINK_CACHE_TTL_SECONDS: "3600",
    LINK_SYNC_INTERVAL_SECONDS: "3600", // only the measured calls sync
  };
  // Node as it ships, like the other runtimes: its release in a process of its own.
  const started = await launchRuntime(runtime, env, { port: 0, log: "file", release: true });
  running.push(started);
  const sql = createNeonSql({ databaseUrl: db.databaseUrl, fetchEndpoint: db.neonFetchEndpoint });
  const reader = `Bearer ${await signToken({ sub: "reader", tid: TENANT, role: "service" }, secret)}`;
  const admin = `Bearer ${await signToken({ sub: "root", tid: TENANT, role: "admin" }, secret)}`;
  await seedBacklog(sql, started.url, reader, opts);
  progress(`${runtime}: backlog of ${opts.changes} changes (+${opts.old} past retention) seeded`);

  const start = performance.now();
  let calls = 0;
  let caughtUpMs: number | undefined;
  let prunedMs: number | null = null;
  while (performance.now() - start < GIVE_UP_MS && (caughtUpMs === undefined || prunedMs === null)) {
    // The feed is read below the server's oldest transaction in flight, and on a shared server
    // another session's transaction can hide the backlog: a sync that answers caughtUp then has
    // not read it. Only a call made while the whole backlog was below that horizon counts.
    const backlogReadable = caughtUpMs === undefined && (await belowHorizon(sql));
    const response = await fetch(`${started.url}/v1/admin/links/sync`, {
      method: "POST",
      headers: { authorization: admin },
    });
    if (response.status === 429) {
      // Once caught up, calls that only wait for the pruning follow each other quickly enough to
      // spend the caller's write quota (1,200 a minute): wait as the answer says, as a scheduler would.
      await response.body?.cancel();
      await sleep(Number(response.headers.get("retry-after") ?? 1) * 1000);
      continue;
    }
    if (response.status !== 200) throw new Error(`sync answered ${response.status}: ${await response.text()}`);
    const report = (await response.json()) as { caughtUp: boolean };
    if (caughtUpMs === undefined) calls++; // the calls after it only wait for the pruning
    if (report.caughtUp && backlogReadable) caughtUpMs = performance.now() - start;
    if (prunedMs === null && (await count(sql, "changed_at < now() - interval '1 hour'")) === 0)
      prunedMs = performance.now() - start;
  }
  if (caughtUpMs === undefined) throw new Error(`${runtime}: not caught up within ${GIVE_UP_MS / 1000} s`);
  // Their links are gone from Postgres: a lookup still answering 200 was served the stale entry.
  // Counted in the KV, not from the calls' reports: on Deno the minute's cron syncs beside them.
  const stillCached = (await lookUpStale(started.url, reader, opts.stale)).filter((status) => status === 200).length;
  const left = {
    total: await count(sql, "true"),
    pastRetention: await count(sql, "changed_at < now() - interval '1 hour'"),
  };
  const changesPerSecond = Math.round(opts.changes / (caughtUpMs / 1000));
  return {
    runtime,
    calls,
    removed: opts.stale - stillCached,
    caughtUpMs: Math.round(caughtUpMs),
    changesPerSecond,
    prunedMs: prunedMs && Math.round(prunedMs),
    left,
  };
}

async function main() {
  const opts = options();
  const running: RunningRuntime[] = [];
  const databases: BenchDatabase[] = [];
  const unmute = muteStdout(); // node serves in this process and logs a line per request
  const cleanup = async () => {
    await Promise.allSettled(running.map((runtime) => runtime.close()));
    await Promise.allSettled(databases.map((db) => db.close()));
    unmute();
  };
  const guard = guardProcess(cleanup, running);
  const results: SyncResult[] = [];
  let databaseDescription = "";
  try {
    for (const runtime of opts.runtimes) {
      const db = await openBenchDatabase(process.env.DATABASE_URL);
      databases.push(db);
      databaseDescription = db.description.replace(/, schema \S+/, "");
      const result = await syncOnce(runtime, db, opts, running);
      guard.takeOver();
      progress(
        `${runtime}: caught up in ${result.caughtUpMs} ms (${result.changesPerSecond} changes/s, ${result.calls} calls)`,
      );
      results.push(result);
      await Promise.allSettled(running.splice(0).map((started) => started.close()));
      await db.close();
      databases.splice(databases.indexOf(db), 1);
    }
    const info = await machineInfo();
    const machine = `${info.cpus} × ${info.cpuModel}, Node ${info.node}, load ${info.loadAverage.join(" ")}`;
    const written = await writeResults(opts.out, {
      "sync.json": syncJson(results, opts),
      "sync.md": syncMarkdown(results, opts, machine, databaseDescription),
    });
    for (const file of written) progress(`wrote ${file}`);
  } finally {
    await cleanup();
    guard.release();
  }
}

await runBenchCommand(USAGE, main);
