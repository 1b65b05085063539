// What the local Neon-compatible endpoint needs from a database: one parameterized statement,
// one batch as a transaction, and (for migrations only) a multi-statement script.

export type IsolationLevel = "ReadUncommitted" | "ReadCommitted" | "RepeatableRead" | "Serializable";

export interface BatchOptions {
  isolationLevel?: IsolationLevel;
  readOnly?: boolean;
  deferrable?: boolean;
}

export interface FieldInfo {
  name: string;
  dataTypeID: number;
  tableID: number;
  columnID: number;
  dataTypeSize: number;
  dataTypeModifier: number;
  format: "text";
}

/** One statement's result in Neon's wire shape: every value is Postgres text (or null). */
export interface QueryResult {
  fields: FieldInfo[];
  rows: (string | null)[][];
  command: string;
  rowCount: number | null;
}

export interface Statement {
  query: string;
  params: (string | null)[];
}

/** The fields of a Postgres error, in the order Neon answers them (HTTP 400) and the driver copies them. */
export const ERROR_FIELDS = [
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "severity",
  "where",
  "table",
  "column",
  "schema",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

/** Postgres' own error fields, as Neon's proxy forwards them (absent = undefined). */
export interface PostgresErrorFields {
  message: string;
  code?: string;
  detail?: string;
  hint?: string;
  position?: string;
  internalPosition?: string;
  internalQuery?: string;
  severity?: string;
  where?: string;
  table?: string;
  column?: string;
  schema?: string;
  dataType?: string;
  constraint?: string;
  file?: string;
  line?: string;
  routine?: string;
}

/** Thrown by a backend when Postgres itself rejected a statement (answered as HTTP 400). */
export class PostgresError extends Error {
  constructor(readonly fields: PostgresErrorFields) {
    super(fields.message);
    this.name = "PostgresError";
  }

  // Where pg puts them too, so the migrator reads either backend's errors alike.
  get code(): string | undefined {
    return this.fields.code;
  }

  get constraint(): string | undefined {
    return this.fields.constraint;
  }
}

/**
 * Thrown when a request's statements were never started (no connection, queue wait over, request
 * abandoned, backend closed): the endpoint answers 503, which promises that nothing was written.
 */
export class NotStartedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotStartedError";
  }
}

export interface SqlBackend {
  readonly kind: "postgres" | "pglite";
  /**
   * One statement over the extended protocol: multi-statement text is refused (42601).
   * `signal` fires when the client went away: a statement not yet started never starts, a
   * running one is cancelled where the backend can (PostgreSQL), and its connection is discarded.
   */
  query(statement: Statement, signal?: AbortSignal): Promise<QueryResult>;
  /** BEGIN with options … COMMIT; rolls back and rethrows on the first error. */
  batch(statements: Statement[], options: BatchOptions, signal?: AbortSignal): Promise<QueryResult[]>;
  /** A multi-statement script (simple protocol), for migrations only. */
  exec(script: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * What Neon's proxy does to a pooled connection before the next client gets it: rollback (done by
 * the caller), reset all, deallocate all, unlock all, discard temp, unlisten — DISCARD ALL is
 * exactly that set (plus closing cursors and SET SESSION AUTHORIZATION DEFAULT).
 */
export const RESET_SESSION = "DISCARD ALL";

// Statements that may leave session state behind: SET/RESET/PREPARE/LISTEN/DECLARE/DISCARD/DO/
// CREATE/CALL at the start, or temporary objects, advisory locks, set_config, roles, anywhere.
// (A user-defined function that sets session state when called is not caught: documented.)
const SESSION_CHANGING_START =
  /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(set|reset|prepare|listen|declare|discard|do|create|call|load|begin|start)\b/i;
const SESSION_CHANGING_ANYWHERE = /temp|advisory|set_config|authorization|role|search_path|listen/i;

export function mayChangeSession({ query }: Statement): boolean {
  return SESSION_CHANGING_START.test(query) || SESSION_CHANGING_ANYWHERE.test(query);
}

// --- Helpers shared by the backends (pg and PGlite speak the same wire protocol). ---

const ISOLATION_SQL: Record<IsolationLevel, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};

/** The BEGIN a batch starts with, carrying the options the way Neon's proxy builds them. */
export function beginStatement(options: BatchOptions): string {
  const parts = ["BEGIN"];
  if (options.isolationLevel) parts.push(`ISOLATION LEVEL ${ISOLATION_SQL[options.isolationLevel]}`);
  if (options.readOnly !== undefined) parts.push(options.readOnly ? "READ ONLY" : "READ WRITE");
  if (options.deferrable !== undefined) parts.push(options.deferrable ? "DEFERRABLE" : "NOT DEFERRABLE");
  return parts.join(" ");
}

/** pg's and PGlite's DatabaseError (both pg-protocol) carry Postgres' fields under these names. */
export function toPostgresError(error: { message: string } & object): PostgresError {
  const fields: PostgresErrorFields = { message: error.message };
  const source = error as Record<string, unknown>;
  for (const key of ERROR_FIELDS) {
    const value = source[key];
    if (typeof value === "string" || typeof value === "number") fields[key] = String(value);
  }
  return new PostgresError(fields);
}

/** A command tag ("INSERT 0 3", "SELECT 2", "CREATE TABLE") as Neon reports it: first word + count. */
export function parseCommandTag(tag: string): { command: string; rowCount: number | null } {
  const words = tag.split(" ");
  const command = words[0] ?? "";
  // INSERT's tag is "INSERT <oid> <rows>"; other counted tags end in their row count.
  const count = words.length < 2 ? undefined : command === "INSERT" ? words[2] : words[1];
  const rowCount = count !== undefined && /^\d+$/.test(count) ? Number(count) : null;
  return { command, rowCount };
}
