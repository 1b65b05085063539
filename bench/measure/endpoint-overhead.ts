// What the local Neon-compatible endpoint adds to a round trip: a one-row INSERT (and SELECT 1)
// over `pg` directly and through the SQL port the Node service uses (→ endpoint → PostgreSQL),
// interleaved so both see the same machine, keep-alive on both, the ratio taken within each block
// of rounds so that a noisy stretch lands on both sides of it. `npm run bench` reports it; run
// alone: `npx tsx bench/measure/endpoint-overhead.ts [--rounds 4000]` (prints one JSON object).
// Needs a PostgreSQL that may create a scratch database: TEST_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/postgres.
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startLocalStack } from "../../dev/local-stack/stack.ts";
import { parseCommandLine } from "../../dev/support/command-line.ts";
import { runStatement } from "../../dev/support/run-statement.ts";
import { LOCAL_POSTGRES_URL } from "../../dev/support/scratch-schema.ts";
import { median, percentile, range } from "../../dev/support/stats.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";
import { bounds, runBenchCommand, wholeNumber } from "../lib/cli.ts";

/** Where a round trip's time goes, p50 and p90 in ms, and the ratio of the p50s. */
export interface RoundTripFigures {
  pgP50Ms: number;
  pgP90Ms: number;
  endpointP50Ms: number;
  endpointP90Ms: number;
  /** The median over the blocks of each block's endpoint p50 over its pg p50. */
  ratioP50: number;
  /** The lowest and highest block's ratio. */
  ratioP50Spread: { min: number; max: number };
  blocks: number;
  /**
   * This process' CPU time per round trip (client, endpoint and pg; not PostgreSQL's), in µs:
   * what the hop costs whatever the machine's commit latency, which sets the ratio's denominator.
   */
  pgCpuUs?: number;
  endpointCpuUs?: number;
}

export interface EndpointOverhead {
  rounds: number;
  insert: RoundTripFigures;
  select1: RoundTripFigures;
}

const INSERT = "INSERT INTO overhead (v) VALUES ($1) RETURNING id";
// A local stack serves thousands of round trips; its first thousand, while V8 is still compiling
// the endpoint's code, are not what it adds for the rest of its life.
const WARMUP = 1000;
/** Pairs per block: enough for a stable p50, short enough (~0.5 s) for the machine to stay alike within one. */
export const BLOCK_ROUNDS = 500;
/** Pairs measured by default, standalone and in the bench: 8 blocks, ~8 s for both statements. */
const DEFAULT_ROUNDS = 4000;

export async function measureEndpointOverhead(adminUrl: string, rounds = DEFAULT_ROUNDS): Promise<EndpointOverhead> {
  const name = `overhead_${randomBytes(4).toString("hex")}`;
  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` });
  url.searchParams.delete("options"); // a search_path of the caller's database (the bench's scratch schema)
  const databaseUrl = url.toString();
  await runStatement(adminUrl, `CREATE DATABASE ${name}`);
  try {
    const stack = await startLocalStack({
      databaseUrl,
      ownerSql: "CREATE TABLE overhead (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)",
    });
    const direct = new pg.Client({ connectionString: databaseUrl });
    await direct.connect();
    try {
      const viaEndpoint = createNeonSql({
        databaseUrl: stack.databaseUrl,
        fetchEndpoint: stack.neonFetchEndpoint,
      });
      return {
        rounds,
        insert: await interleaved(
          rounds,
          () => direct.query(INSERT, ["x"]),
          () => viaEndpoint.query(INSERT, ["x"]),
        ),
        select1: await interleaved(
          rounds,
          () => direct.query("SELECT 1"),
          () => viaEndpoint.query("SELECT 1"),
        ),
      };
    } finally {
      await direct.end();
      await stack.close();
    }
  } finally {
    await runStatement(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** Both ways in turns, the first of each pair alternating, so neither always runs on a warmer machine. */
async function interleaved(
  rounds: number,
  viaPg: () => Promise<unknown>,
  viaEndpoint: () => Promise<unknown>,
): Promise<RoundTripFigures> {
  const samples = { pg: [] as number[], endpoint: [] as number[] };
  const cpuUs = { pg: 0, endpoint: 0 };
  for (let i = 0; i < WARMUP + rounds; i++) {
    const order = i % 2 === 0 ? (["pg", "endpoint"] as const) : (["endpoint", "pg"] as const);
    for (const which of order) {
      // Read outside the timed span: getrusage is a system call of its own.
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await (which === "pg" ? viaPg() : viaEndpoint());
      const elapsed = performance.now() - started;
      if (i < WARMUP) continue;
      samples[which].push(elapsed);
      const cpu = process.cpuUsage(cpuBefore);
      cpuUs[which] += cpu.user + cpu.system;
    }
  }
  return {
    ...roundTripFigures(samples.pg, samples.endpoint),
    pgCpuUs: Math.round(cpuUs.pg / rounds),
    endpointCpuUs: Math.round(cpuUs.endpoint / rounds),
  };
}

/** The figures of paired samples (sample i of each side taken together), in blocks of BLOCK_ROUNDS pairs. */
export function roundTripFigures(pg: readonly number[], endpoint: readonly number[]): RoundTripFigures {
  const ratios: number[] = [];
  // A last block shorter than half a block is folded into the one before it.
  const blocks = Math.max(1, Math.round(pg.length / BLOCK_ROUNDS));
  for (let b = 0; b < blocks; b++) {
    const end = b === blocks - 1 ? pg.length : (b + 1) * BLOCK_ROUNDS;
    const slice = (side: readonly number[]) => side.slice(b * BLOCK_ROUNDS, end);
    ratios.push(percentile(slice(endpoint), 50) / percentile(slice(pg), 50));
  }
  const spread = range(ratios);
  return {
    pgP50Ms: round(percentile(pg, 50)),
    pgP90Ms: round(percentile(pg, 90)),
    endpointP50Ms: round(percentile(endpoint, 50)),
    endpointP90Ms: round(percentile(endpoint, 90)),
    ratioP50: round(median(ratios)),
    ratioP50Spread: { min: round(spread.min), max: round(spread.max) },
    blocks,
  };
}

/** One line for the bench's report. */
export function endpointOverheadNote(result: EndpointOverhead | Error | undefined): string {
  if (!result) return "Endpoint overhead not measured: it needs PostgreSQL (set DATABASE_URL).";
  if (result instanceof Error) return `Endpoint overhead not measured: ${result.message}`;
  const line = (label: string, f: RoundTripFigures) =>
    `${label} ${f.endpointP50Ms.toFixed(2)} ms through the endpoint vs ${f.pgP50Ms.toFixed(2)} ms over pg, ` +
    `${f.ratioP50.toFixed(2)}× (blocks ${f.ratioP50Spread.min.toFixed(2)}–${f.ratioP50Spread.max.toFixed(2)}×)` +
    (f.pgCpuUs === undefined || f.endpointCpuUs === undefined
      ? ""
      : `, CPU ${f.endpointCpuUs} vs ${f.pgCpuUs} µs per round trip`);
  return (
    `Local endpoint overhead (p50 of ${result.rounds} interleaved round trips, the ratio the median of ` +
    `${result.insert.blocks} blocks' own): ` +
    `${line("one-row INSERT", result.insert)}; ${line("SELECT 1", result.select1)}.`
  );
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Fewer pairs than a block would leave no block to take a ratio in.
  const ROUNDS = { min: BLOCK_ROUNDS, default: DEFAULT_ROUNDS };
  const usage = `npx tsx bench/measure/endpoint-overhead.ts [options]
  --rounds N  pairs measured (pg, endpoint) after ${WARMUP.toLocaleString("en-US")} unmeasured, a ratio per block of ${BLOCK_ROUNDS} ${bounds(ROUNDS)}
One-row INSERT and SELECT 1, p50 over pg directly vs through the local Neon endpoint, interleaved.`;
  const values = parseCommandLine(usage, { rounds: { type: "string" } });
  await runBenchCommand(usage, async () => {
    const rounds = wholeNumber("rounds", values.rounds, ROUNDS);
    console.log(JSON.stringify(await measureEndpointOverhead(LOCAL_POSTGRES_URL, rounds), null, 2));
  });
}
