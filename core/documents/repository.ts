// Documents in Postgres. The number is allocated by the BEFORE INSERT trigger of
// sql/0003_documents.sql (its function as sql/0005 replaced it), inside the INSERT itself: one
// statement, one round trip, no gap.
import { keysetPage, type Page } from "../http/pagination.ts";
import type { Caller, KeyedRequest } from "../idempotency/key.ts";
import { createOnce } from "../idempotency/settle.ts";
import { toIsoTimestamp } from "../ports/rows.ts";
import type { Row, Sql } from "../ports/sql.ts";

export interface Document {
  id: string;
  tenantId: string;
  docNumber: number;
  contractId: string;
  title: string | null;
  createdAt: string;
}

/** Who creates it: an Idempotency-Key is this caller's own. */
interface NewDocument extends Caller {
  contractId: string;
  title: string | null;
  /** The key, if the request names one: the caller's (tenant and subject), for its `ttlSeconds`. */
  idempotency?: KeyedRequest;
}

type CreateResult =
  | { outcome: "created" | "replayed"; document: Document }
  /** The key already names a request with another body; nothing was written. */
  | { outcome: "key_reused" };

const COLUMNS = "id, tenant_id, doc_number, contract_id, title, created_at, request_fingerprint";

// A key names a document only until it expires (sql/0011): an expired one is ignored here and
// given up by the trigger, which then numbers a new document.
const KEY_LIVE = "documents_key_live(idempotency_expires_at, created_at)";

// The caller's key (in the parameters named), or one stored before keys had callers
// (sql/0014: '', every caller's of the tenant until it expires); the caller's own first.
const callersKey = (columns: string, tenant: string, subject: string, key: string) => `
SELECT ${columns} FROM documents
WHERE tenant_id = ${tenant} AND idempotency_subject IN (${subject}, '') AND idempotency_key = ${key} AND ${KEY_LIVE}
ORDER BY idempotency_subject DESC LIMIT 1`;

// The trigger skips the insert (allocating nothing) when the caller already has the key; the
// second branch then answers the stored document. Both branches read one snapshot, so a first
// use of the key committed while this statement waited for the tenant's lock is not seen here.
const CREATE = `
WITH inserted AS (
  INSERT INTO documents
    (tenant_id, idempotency_subject, contract_id, title, idempotency_key, request_fingerprint, idempotency_expires_at)
  VALUES ($1, $7, $2, $3, $4, $5, CASE WHEN $4::text IS NULL THEN NULL ELSE now() + make_interval(secs => $6::int) END)
  RETURNING ${COLUMNS}, true AS created
)
SELECT * FROM inserted
UNION ALL
SELECT * FROM (${callersKey(`${COLUMNS}, false`, "$1", "$7", "$4")}) AS stored
WHERE NOT EXISTS (SELECT 1 FROM inserted)`;

const BY_KEY = callersKey(COLUMNS, "$1", "$2", "$3");

const BY_NUMBER = `SELECT ${COLUMNS} FROM documents WHERE tenant_id = $1 AND doc_number = $2`;

const PAGE = `
SELECT ${COLUMNS} FROM documents
WHERE tenant_id = $1 AND doc_number > $2
ORDER BY doc_number
LIMIT $3`;

// Expired keys, oldest first, at most $1 per statement (expireKeys); rows a creator holds are left
// for later.
// Both ranges of documents_idempotency_expiry_key: keys with an expiry, and keys written without
// one (before sql/0011, or by the release before it), which expire a day after their document.
// Each branch is ordered as the index is, so it walks its range from the start and stops at $1
// rows: unordered, the first read every expired key into a bitmap (a backlog's worth per batch),
// and the second, estimated by the table's many unkeyed rows, read every keyed document.
export const DOCUMENT_KEYS_EXPIRY = `
WITH expired AS (
  (SELECT id FROM documents
   WHERE idempotency_key IS NOT NULL AND idempotency_expires_at <= now()
   ORDER BY idempotency_expires_at, created_at LIMIT $1)
  UNION ALL
  (SELECT id FROM documents
   WHERE idempotency_key IS NOT NULL AND idempotency_expires_at IS NULL
     AND created_at <= now() - interval '86400 seconds'
   ORDER BY idempotency_expires_at, created_at LIMIT $1)
), locked AS (
  SELECT id FROM documents WHERE id IN (SELECT id FROM expired LIMIT $1) FOR UPDATE SKIP LOCKED
), cleared AS (
  UPDATE documents d SET idempotency_key = NULL, request_fingerprint = NULL, idempotency_expires_at = NULL
  FROM locked WHERE d.id = locked.id
  RETURNING 1
)
SELECT count(*)::int AS expired FROM cleared`;

/** Creates the document, or answers the one the caller's Idempotency-Key already names. */
export async function createDocument(sql: Sql, input: NewDocument): Promise<CreateResult> {
  const { key, fingerprint, ttlSeconds } = input.idempotency ?? { key: null, fingerprint: null, ttlSeconds: null };
  const ttl = ttlSeconds && String(ttlSeconds);
  const params = [input.tenantId, input.contractId, input.title, key, fingerprint, ttl, input.subject];
  const attempt = async () => (await sql.query(CREATE, params))[0];
  if (key === null || fingerprint === null) {
    const row = await attempt();
    if (row?.created !== true) throw new Error("the document insert returned no row");
    return { outcome: "created", document: toDocument(row) };
  }
  const readStored = async () => (await sql.query(BY_KEY, [input.tenantId, input.subject, key]))[0];
  const settled = await createOnce(attempt, fingerprint, readStored);
  return settled.outcome === "key_reused" ? settled : { outcome: settled.outcome, document: toDocument(settled.row) };
}

export async function findDocument(sql: Sql, tenantId: string, docNumber: number): Promise<Document | undefined> {
  const [row] = await sql.query(BY_NUMBER, [tenantId, String(docNumber)]);
  return row && toDocument(row);
}

/** Keyset pagination: the documents numbered after `after`, in order. */
export async function listDocuments(
  sql: Sql,
  tenantId: string,
  after: number,
  limit: number,
): Promise<Page<Document, number>> {
  const rows = await sql.query(PAGE, [tenantId, String(after), String(limit + 1)]);
  return keysetPage(rows, limit, toDocument, (document) => document.docNumber);
}

function toDocument(row: Row): Document {
  return {
    id: String(row.id),
    tenantId: String(row.tenant_id),
    docNumber: toDocNumber(row.doc_number),
    contractId: String(row.contract_id),
    title: row.title === null ? null : String(row.title),
    createdAt: toIsoTimestamp(row.created_at),
  };
}

/** bigint arrives as text (JSON numbers would lose precision); a number is safe up to 2^53 - 1. */
function toDocNumber(value: unknown): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new Error(`doc_number ${String(value)} is not a safe integer`);
  return number;
}
