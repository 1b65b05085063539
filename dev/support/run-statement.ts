// One statement on a connection of its own, for administration (creating or dropping a scratch
// database or schema) by tests, measurements and the bench.
import pg from "pg";

export async function runStatement(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
