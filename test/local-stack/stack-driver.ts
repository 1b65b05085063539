// The local stack as the Neon fidelity suites reach it: through the real Neon driver, routed to the
// stack's endpoint, over PGlite or over a fresh PostgreSQL database.
import { type NeonQueryFunction, neon } from "@neondatabase/serverless";
import { type LocalStack, type LocalStackOptions, startLocalStack } from "../../dev/local-stack/stack.ts";
import { createTestDatabase, type TestDatabase } from "../../dev/support/postgres.ts";
import { routeNeonDriver } from "../support/neon-driver.ts";

export type Driver = NeonQueryFunction<true, false>;

/** The driver for `stack`, routed to its endpoint. */
export function driverFor(stack: LocalStack, databaseUrl = stack.databaseUrl): Driver {
  return neon(routeNeonDriver(databaseUrl, stack.neonFetchEndpoint), { arrayMode: true });
}

export const one = async (sql: Driver, text: string, params: unknown[] = []) =>
  ((await sql.query(text, params)) as unknown[][])[0]?.[0];

export interface Opened {
  stack: LocalStack;
  database?: TestDatabase;
}

export async function open(backend: "pglite" | "postgres", options: LocalStackOptions = {}): Promise<Opened> {
  const database = backend === "postgres" ? await createTestDatabase() : undefined;
  // One pooled connection: the next request surely gets the connection the last one used.
  const stack = await startLocalStack({ databaseUrl: database?.url, poolSize: 1, ...options });
  return { stack, database };
}

export async function dispose(opened: Opened | undefined) {
  await opened?.stack.close();
  await opened?.database?.drop();
}
