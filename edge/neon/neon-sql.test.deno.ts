// Runs under `deno test` only (dev/support/deno-tests.ts): the Neon SQL port over Deno's own
// fetch, whose errors are not Node's. A request that never left (no address, no connection) is
// "unavailable", so a write is told nothing was written, as on Node.
import assert from "node:assert/strict";
import { DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { createNeonSql } from "./neon-sql.ts";

interface DenoTestGlobal {
  listen(options: { hostname: string; port: number }): { addr: { port: number }; close(): void };
  test(name: string, run: () => Promise<void>): void;
}
const deno = (globalThis as unknown as { Deno: DenoTestGlobal }).Deno;

const WRITE = "INSERT INTO documents DEFAULT VALUES";

/** The port pointed at `host` (host:port), as NEON_FETCH_ENDPOINT would point it. */
const sqlAt = (host: string) =>
  createNeonSql({
    databaseUrl: `postgres://app:pw-for-tests@${host}/db`,
    fetchEndpoint: `http://${host}/sql`,
    timeoutMs: 5_000,
  });

deno.test("a write to an endpoint whose host name does not resolve is unavailable", async () => {
  const error = await sqlAt("db.invalid")
    .query(WRITE)
    .catch((e: unknown) => e);
  assert.ok(error instanceof DatabaseUnavailableError, String(error));
  // The log line says why, not only Deno's "fetch failed".
  assert.match(error.message, /fetch failed \(.*dns error/);
});

deno.test("a write to an endpoint that refuses the connection is unavailable", async () => {
  const listener = deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  await assert.rejects(sqlAt(`127.0.0.1:${port}`).query(WRITE), DatabaseUnavailableError);
});
