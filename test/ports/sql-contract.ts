// What the SQL port (core/ports/sql.ts) promises core, whatever carries it: row objects from one
// parameterized statement, Postgres refusals as DatabaseError with SQLSTATE and constraint,
// transactions all or nothing with their options honoured. Run on every local backend through
// the SQL port over Neon's driver (edge/neon/neon-sql.integration.test.ts). Each case touches rows of its own.
import assert from "node:assert/strict";
import { DatabaseError, DatabaseUnavailableError, isUniqueViolation, type Sql } from "../../core/ports/sql.ts";
import type { ContractCase } from "./contract.ts";

const insertLink = `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
                   VALUES ('acme', $1, $2, $3) RETURNING id`;

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail("expected a refusal"),
    (error: unknown) => error,
  );

export const sqlContract: readonly ContractCase<Sql>[] = [
  [
    "runs a parameterized statement and returns row objects",
    async (sql) => {
      const rows = await sql.query("SELECT $1::int8 AS n, $2::text AS t", [42, "x"]);
      assert.deepEqual(rows, [{ n: "42", t: "x" }]);
    },
  ],
  [
    "reports a unique violation as 23505 with the index's name",
    async (sql) => {
      await sql.query(insertLink, ["github", "contract-unique", "alice"]);
      const error = await refusal(sql.query(insertLink, ["github", "contract-unique", "bob"]));
      assert.ok(error instanceof DatabaseError);
      assert.equal(error.code, "23505");
      assert.equal(error.constraint, "linked_external_accounts_external_account_key");
      assert.equal(isUniqueViolation(error, "linked_external_accounts_external_account_key"), true);
      assert.equal(isUniqueViolation(error, "linked_external_accounts_user_provider_key"), false);
    },
  ],
  [
    "reports a check violation with its SQLSTATE",
    async (sql) => {
      const error = await refusal(sql.query(insertLink, [" GitHub", "contract-check", "carol"]));
      assert.ok(error instanceof DatabaseError);
      assert.equal(error.code, "23514");
    },
  ],
  [
    "rolls a transaction back entirely when a statement fails midway",
    async (sql) => {
      const error = await refusal(
        sql.transaction([
          { text: insertLink, params: ["gitlab", "contract-batch", "dave"] },
          { text: insertLink, params: ["gitlab", "contract-batch", "erin"] },
        ]),
      );
      assert.ok(error instanceof DatabaseError);
      assert.equal(error.code, "23505");
      const rows = await sql.query(
        "SELECT count(*)::int AS n FROM linked_external_accounts WHERE external_account_id = $1",
        ["contract-batch"],
      );
      assert.deepEqual(rows, [{ n: 0 }]);
    },
  ],
  [
    "returns each statement's rows from a transaction, in order",
    async (sql) => {
      const results = await sql.transaction([
        { text: "SELECT 1 AS a" },
        { text: "SELECT $1::text AS b", params: ["two"] },
      ]);
      assert.deepEqual(results, [[{ a: 1 }], [{ b: "two" }]]);
    },
  ],
  [
    "honours the transaction's isolation level and read-only mode",
    async (sql) => {
      const [rows] = await sql.transaction([{ text: "SELECT current_setting('transaction_isolation') AS level" }], {
        isolationLevel: "Serializable",
      });
      assert.deepEqual(rows, [{ level: "serializable" }]);
      const error = await refusal(
        sql.transaction([{ text: insertLink, params: ["github", "contract-ro", "frank"] }], { readOnly: true }),
      );
      // 25006 (read-only transaction): the statement rolled back, nothing was written, so the
      // port reports the database as unavailable for writes, like any transient refusal.
      assert.ok(error instanceof DatabaseUnavailableError, String(error));
    },
  ],
];
