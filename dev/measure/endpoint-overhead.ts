// `npx tsx dev/measure/endpoint-overhead.ts [--rounds 2000]`: what the local Neon-compatible
// endpoint adds to a round trip. A one-row INSERT (and SELECT 1) over `pg` directly and through
// the app's SQL port (Neon client → endpoint → PostgreSQL), interleaved so both see the same
// machine, keep-alive on both. Prints p50/p90 of each and the p50 ratio as one JSON object.
// Needs the PostgreSQL of TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { percentile } from "../../bench/lib/stats.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";
import { parseCommandLine } from "../cli.ts";
import { startLocalStack } from "../stack.ts";

const USAGE = `Usage: npx tsx dev/measure/endpoint-overhead.ts [--rounds N]

One-row INSERT and SELECT 1, p50 over pg directly vs through the local Neon endpoint, interleaved.`;

const values = parseCommandLine(USAGE, { rounds: { type: "string", default: "2000" } });
const rounds = Number(values.rounds);
const WARMUP = 200;

const adminUrl = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `overhead_${randomBytes(4).toString("hex")}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

await admin(`CREATE DATABASE ${name}`);
try {
  const setup = new pg.Client({ connectionString: databaseUrl });
  await setup.connect();
  await setup.query("CREATE TABLE overhead (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text NOT NULL)");
  await setup.end();

  const stack = await startLocalStack({ databaseUrl });
  const viaEndpoint = createNeonSql({ databaseUrl: stack.databaseUrl, fetchEndpoint: stack.neonFetchEndpoint });
  const direct = new pg.Client({ connectionString: databaseUrl });
  await direct.connect();
  const insert = "INSERT INTO overhead (v) VALUES ($1) RETURNING id";
  const cases = {
    insert: { direct: () => direct.query(insert, ["x"]), endpoint: () => viaEndpoint.query(insert, ["x"]) },
    select1: { direct: () => direct.query("SELECT 1"), endpoint: () => viaEndpoint.query("SELECT 1") },
  };
  const report: Record<string, unknown> = { rounds };
  for (const [label, { direct: viaPg, endpoint }] of Object.entries(cases)) {
    const samples = { pg: [] as number[], endpoint: [] as number[] };
    for (let i = 0; i < WARMUP + rounds; i++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      const order = i % 2 === 0 ? (["pg", "endpoint"] as const) : (["endpoint", "pg"] as const);
      for (const which of order) {
        const started = performance.now();
        await (which === "pg" ? viaPg() : endpoint());
        if (i >= WARMUP) samples[which].push(performance.now() - started);
      }
    }
    const p50pg = percentile(samples.pg, 50);
    const p50endpoint = percentile(samples.endpoint, 50);
    report[label] = {
      pgP50Ms: round(p50pg),
      pgP90Ms: round(percentile(samples.pg, 90)),
      endpointP50Ms: round(p50endpoint),
      endpointP90Ms: round(percentile(samples.endpoint, 90)),
      ratioP50: round(p50endpoint / p50pg),
    };
  }
  console.log(JSON.stringify(report, null, 2));
  await direct.end();
  await stack.close();
} finally {
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
