// Counter-example: the numbering of the document-numbering article. Read the tenant's highest
// number, add one, insert. Two requests that read the same max() both insert max + 1; the unique
// key refuses the later one (23505), so a request fails because another one ran at the same time.
// Kept to prove that the load of the race suite really races: core/documents must survive it.
import type { Sql } from "../../core/ports/sql.ts";

const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS max_plus_one_documents (
  tenant_id   text   NOT NULL,
  doc_number  bigint NOT NULL,
  contract_id text   NOT NULL,
  CONSTRAINT max_plus_one_documents_tenant_number_key UNIQUE (tenant_id, doc_number)
)`;

// One statement, so not even a read-then-write round trip apart: the race is inside Postgres,
// between the snapshot max() reads and the insert.
const INSERT_NEXT = `
INSERT INTO max_plus_one_documents (tenant_id, doc_number, contract_id)
SELECT $1, coalesce(max(doc_number), 0) + 1, $2
FROM max_plus_one_documents WHERE tenant_id = $1
RETURNING doc_number`;

export const MAX_PLUS_ONE_CONSTRAINT = "max_plus_one_documents_tenant_number_key";

/** `ownerExec` creates the table: requests run as the app role, which cannot (as on Neon). */
export function maxPlusOneNumbering(sql: Sql, ownerExec: (script: string) => Promise<void>) {
  return {
    async prepare(): Promise<void> {
      await ownerExec(CREATE_TABLE);
    },
    /** The new document's number; rejects with a 23505 DatabaseError when it collided. */
    async create(tenantId: string, contractId: string): Promise<number> {
      const [row] = await sql.query(INSERT_NEXT, [tenantId, contractId]);
      return Number(row!.doc_number);
    },
    async numbers(tenantId: string): Promise<number[]> {
      const rows = await sql.query("SELECT doc_number FROM max_plus_one_documents WHERE tenant_id = $1 ORDER BY 1", [
        tenantId,
      ]);
      return rows.map((row) => Number(row.doc_number));
    },
  };
}
