// What a span may say of a SQL statement: its operation and its table, read from the statement's
// text. Its parameters are never read, and its text is not recorded: a literal could be anything.

export interface StatementSummary {
  /** SELECT, INSERT, UPDATE, DELETE, or the statement's first word (WITH's main statement's verb). */
  operation: string;
  table?: string;
}

// Not the UPDATE of `ON CONFLICT … DO UPDATE` or of `FOR UPDATE`: neither names a table.
const DATA_CHANGE = /\b(INSERT\s+INTO|(?<!\b(?:DO|FOR)\s+)UPDATE|DELETE\s+FROM)\s+("?[A-Za-z_][\w$]*"?)/i;
const SELECT_FROM = /\bFROM\s+("?[A-Za-z_][\w$]*"?)/i;

/**
 * A statement that changes data is named by its first change (a WITH whose CTE inserts is an
 * INSERT); any other by its first word, with the table it first reads FROM.
 */
export function describeStatement(text: string): StatementSummary {
  const plain = text.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, " ").trim();
  const change = DATA_CHANGE.exec(plain);
  if (change) return { operation: change[1]!.split(/\s+/)[0]!.toUpperCase(), table: unquoted(change[2]!) };
  const operation = (/^[A-Za-z]+/.exec(plain)?.[0] ?? "QUERY").toUpperCase();
  const from = SELECT_FROM.exec(plain);
  return from ? { operation, table: unquoted(from[1]!) } : { operation };
}

const unquoted = (name: string) => name.replace(/"/g, "");
