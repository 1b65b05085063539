// The app's Sql port over a node-postgres pool: the app's own statements, run straight on
// PostgreSQL by the measurements and tests that need many sessions at once (no transactions).
import type pg from "pg";
import type { Sql } from "../../core/ports/sql.ts";

export const poolSql = (pool: pg.Pool): Sql => ({
  query: async (text, params = []) => (await pool.query(text, params as unknown[])).rows,
  transaction: async () => {
    throw new Error("not used");
  },
});
