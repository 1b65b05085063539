// A throwaway schema in a real PostgreSQL. A schema, not a database, so DATABASE_URL needs no
// CREATEDB right and the user's own tables are never touched: the returned URL pins every
// connection to the schema through the startup `search_path`, so the migrations of sql/ (and
// the triggers they create) resolve their tables there.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { runStatement } from "./run-statement.ts";

/** The local PostgreSQL the tests, the measurements and `npm run race` use unless told otherwise. */
export const LOCAL_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

interface ScratchSchema {
  name: string;
  /** The server URL with `options=-c search_path=<schema>`. */
  url: string;
  /** Where it is, password-free. */
  description: string;
  /** Drops the schema with everything in it. */
  drop(): Promise<void>;
}

export async function createScratchSchema(serverUrl: string, prefix: string): Promise<ScratchSchema> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await runStatement(serverUrl, `CREATE SCHEMA ${name}`);
  const url = new URL(serverUrl);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    description: `schema ${name} in ${url.host}${url.pathname}`,
    drop: () => runStatement(serverUrl, `DROP SCHEMA IF EXISTS ${name} CASCADE`),
  };
}

/** The server's version, or the error that kept it from answering within two seconds. */
export async function serverVersion(url: string): Promise<string | Error> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>("SHOW server_version");
    return rows[0]?.server_version ?? "unknown";
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    await client.end().catch(() => {});
  }
}
