// The write this project does not do: an interactive transaction (BEGIN; SELECT … FOR UPDATE;
// UPDATE; COMMIT), four round trips on one session, next to the project's way, the same change as
// one statement (UPDATE … RETURNING), each round trip held --db-rtt like the endpoint's. The two take turns on the same connections, so the difference is the round trips.
// Neon's HTTP protocol has no sessions, so this runs from the bench over PostgreSQL sessions
// (node-postgres): it needs DATABASE_URL. Each lane updates its own row: no lock waits.
import pg from "pg";
import { percentile } from "../../dev/support/stats.ts";

interface WriteFigures {
  how: string;
  roundTrips: number;
  requests: number;
  p50: number;
  p95: number;
}

interface NaiveWriteResult {
  naive: WriteFigures;
  oneStatement: WriteFigures;
}

const VARIANTS = {
  naive: {
    how: "interactive transaction: BEGIN; SELECT … FOR UPDATE; UPDATE; COMMIT",
    statements: [
      "BEGIN",
      "SELECT version FROM bench_naive_rows WHERE id = $1 FOR UPDATE",
      "UPDATE bench_naive_rows SET version = version + 1 WHERE id = $1",
      "COMMIT",
    ],
  },
  oneStatement: {
    how: "one statement: UPDATE … RETURNING",
    statements: ["UPDATE bench_naive_rows SET version = version + 1 WHERE id = $1 RETURNING version"],
  },
} as const;

export async function measureNaiveWrite(
  postgresUrl: string,
  load: { requests: number; concurrency: number; dbRttMs: number },
): Promise<NaiveWriteResult> {
  const pool = new pg.Pool({ connectionString: postgresUrl, max: load.concurrency });
  try {
    await pool.query(
      "CREATE TABLE IF NOT EXISTS bench_naive_rows (id int PRIMARY KEY, version int NOT NULL DEFAULT 0)",
    );
    await pool.query(
      "INSERT INTO bench_naive_rows (id) SELECT generate_series(0, $1::int - 1) ON CONFLICT DO NOTHING",
      [load.concurrency],
    );
    const latencies = { naive: [] as number[], oneStatement: [] as number[] };
    const lane = async (row: number) => {
      const client = await pool.connect();
      try {
        for (let i = row; i < load.requests; i += load.concurrency) {
          for (const variant of ["naive", "oneStatement"] as const) {
            const started = performance.now();
            for (const text of VARIANTS[variant].statements) {
              await hold(load.dbRttMs);
              await client.query(text, text.includes("$1") ? [row] : []);
            }
            latencies[variant].push(performance.now() - started);
          }
        }
      } finally {
        client.release();
      }
    };
    await Promise.all(Array.from({ length: load.concurrency }, (_, row) => lane(row)));
    const figures = (variant: keyof typeof VARIANTS): WriteFigures => ({
      how: VARIANTS[variant].how,
      roundTrips: VARIANTS[variant].statements.length,
      requests: latencies[variant].length,
      p50: percentile(latencies[variant], 50),
      p95: percentile(latencies[variant], 95),
    });
    return { naive: figures("naive"), oneStatement: figures("oneStatement") };
  } finally {
    await pool.end();
  }
}

const hold = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/** One line for the report. */
export function naiveWriteNote(result: NaiveWriteResult | undefined, dbRttMs: number): string {
  if (!result) return "Naive write not measured: it needs PostgreSQL sessions (set DATABASE_URL).";
  const line = (f: WriteFigures) =>
    `${f.how} (${f.roundTrips} round trip${f.roundTrips > 1 ? "s" : ""}): p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms`;
  return `Writes over PostgreSQL sessions, each round trip held ${dbRttMs} ms, ${result.naive.requests} of each: ${line(result.oneStatement)}; ${line(result.naive)}.`;
}
