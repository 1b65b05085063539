// The SQL port: everything core needs from a database. One parameterized statement, or a short
// list of statements run as one transaction. Every write in this project is a single statement,
// so it needs no interactive transaction and runs in one round trip over Neon's SQL-over-HTTP.

export type Row = Record<string, unknown>;

export interface SqlStatement {
  text: string;
  params?: readonly unknown[];
}

type IsolationLevel = "ReadUncommitted" | "ReadCommitted" | "RepeatableRead" | "Serializable";

export interface TransactionOptions {
  isolationLevel?: IsolationLevel;
  readOnly?: boolean;
  deferrable?: boolean;
}

export interface Sql {
  query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  transaction(statements: readonly SqlStatement[], options?: TransactionOptions): Promise<Row[][]>;
}

interface DatabaseErrorFields {
  code: string;
  constraint?: string;
  detail?: string;
  table?: string;
}

/** Postgres refused a statement. Carries SQLSTATE `code` and `constraint`, whatever carries the SQL. */
export class DatabaseError extends Error {
  readonly code: string;
  readonly constraint: string | undefined;
  readonly detail: string | undefined;
  readonly table: string | undefined;

  constructor(message: string, fields: DatabaseErrorFields) {
    super(message);
    this.name = "DatabaseError";
    this.code = fields.code;
    this.constraint = fields.constraint;
    this.detail = fields.detail;
    this.table = fields.table;
  }
}

/** The database could not be reached, or refused for now (timeout, lock, overload): nothing was written. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseUnavailableError";
  }
}

/**
 * The request reached the database (or may have) and no answer came back: a write may have
 * committed or not. Not "unavailable": a blind retry of a write could do it twice.
 */
export class DatabaseOutcomeUnknownError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseOutcomeUnknownError";
  }
}

/** Whether `error` is the SQL port's: a refusal, the database unavailable, or an outcome unknown. */
export const isDatabaseFailure = (error: unknown): error is Error =>
  error instanceof DatabaseError ||
  error instanceof DatabaseUnavailableError ||
  error instanceof DatabaseOutcomeUnknownError;

const UNIQUE_VIOLATION = "23505";

export function isUniqueViolation(error: unknown, constraint?: string): error is DatabaseError {
  return (
    error instanceof DatabaseError &&
    error.code === UNIQUE_VIOLATION &&
    (constraint === undefined || error.constraint === constraint)
  );
}
