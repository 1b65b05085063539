// Tests that need the real PostgreSQL (127.0.0.1:5432, user postgres, trust auth). Each suite
// gets its own throwaway database. Without PostgreSQL the suites are skipped loudly, except in
// CI, where they fail (required-tool.ts).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describeNeeding } from "./required-tool.ts";
import { runStatement } from "./run-statement.ts";
import { LOCAL_POSTGRES_URL } from "./scratch-schema.ts";

/**
 * Whether PostgreSQL answers (connect + SELECT 1). Where nothing listens the connection is refused
 * at once; a server just installed and started answers its first connections in more than a
 * second while the suites start on two cores (a fresh machine's CI read it as unreachable).
 */
async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: LOCAL_POSTGRES_URL, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {}); // a failing connection must not become an uncaught error
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface TestDatabase {
  /** Connection URL of the new database. */
  url: string;
  name: string;
  /** Drops it, disconnecting whoever is still connected. */
  drop(): Promise<void>;
}

/** A new, uniquely named, empty database (t_<random>). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(LOCAL_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

const admin = (sql: string) => runStatement(LOCAL_POSTGRES_URL, sql);

const available = await postgresAvailable();

/** `describe` for suites that need PostgreSQL: skipped with a warning without it, failing in CI. */
export function describeWithPostgres(name: string, fn: () => void): void {
  const where = new URL(LOCAL_POSTGRES_URL).host;
  const missing = available ? undefined : `PostgreSQL at ${where} is unreachable (start it, or set TEST_POSTGRES_URL)`;
  describeNeeding("PostgreSQL", missing, name, fn);
}
