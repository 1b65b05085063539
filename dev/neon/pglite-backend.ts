// The local endpoint's embedded backend: PGlite (Postgres in WASM), answering in Neon's wire shape.
//
// Statements go to PGlite as raw protocol messages (Parse/Bind/Describe/Execute/Sync) instead of
// through db.query(): db.query() parses values with its type parsers (array types even despite a
// custom `parsers` option) and reports only name and dataTypeID per field. The raw messages
// carry exactly what Neon's proxy forwards: the text Postgres sent and the full field description.
import { mkdir } from "node:fs/promises";
import { messages, PGlite, protocol } from "@electric-sql/pglite";
import {
  beginStatement,
  parseCommandTag,
  toPostgresError,
  type FieldInfo,
  type QueryResult,
  type SqlBackend,
  type Statement,
} from "./backend.ts";

/** `dataDir` undefined → in memory; a path → persisted there (the folder is created). */
export async function createPgliteBackend(dataDir?: string): Promise<SqlBackend> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir ? { dataDir } : {});
  const serialized = promiseQueue();
  let closed = false;

  // PGlite is ONE session, so every request runs alone, and none may hand the next one an
  // open transaction.
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return serialized(async () => {
      if (closed) throw new Error("the PGlite backend is closed");
      try {
        return await fn();
      } finally {
        if (db.isInTransaction()) await execute(db, { query: "ROLLBACK", params: [] });
      }
    });
  }

  return {
    kind: "pglite",

    // A single statement that leaves a transaction open (a bare BEGIN) still gets its answer;
    // the rollback in `exclusive` plays the part of Neon discarding that connection.
    query: (statement) => exclusive(() => execute(db, statement)),

    batch: (statements, options) =>
      exclusive(async () => {
        // On an error `exclusive` rolls back: BEGIN … COMMIT either all happens or none of it.
        await execute(db, { query: beginStatement(options), params: [] });
        const results: QueryResult[] = [];
        for (const statement of statements) results.push(await execute(db, statement));
        await execute(db, { query: "COMMIT", params: [] });
        return results;
      }),

    exec: (script) =>
      exclusive(async () => {
        try {
          await db.exec(script);
        } catch (error) {
          throw asPostgresError(error);
        }
      }),

    close: () =>
      serialized(async () => {
        if (closed) return;
        closed = true;
        await db.close();
      }),
  };
}

/** One statement over the extended protocol: multi-statement text is refused (42601) by Postgres. */
async function execute(db: PGlite, statement: Statement): Promise<QueryResult> {
  const { serialize } = protocol;
  const message = concat([
    serialize.parse({ text: statement.query }), // no parameter types: Postgres infers them, as on Neon
    serialize.bind({ values: statement.params }),
    serialize.describe({ type: "P" }),
    serialize.execute({}),
    serialize.sync(), // always ends the exchange, so an error leaves the session usable
  ]);
  let replies: messages.BackendMessage[];
  try {
    replies = (await db.execProtocol(message)).messages;
  } catch (error) {
    throw asPostgresError(error);
  }
  return toResult(replies);
}

function toResult(replies: messages.BackendMessage[]): QueryResult {
  const result: QueryResult = { fields: [], rows: [], command: "", rowCount: null };
  for (const reply of replies) {
    if (reply instanceof messages.RowDescriptionMessage) result.fields = reply.fields.map(toFieldInfo);
    else if (reply instanceof messages.DataRowMessage) result.rows.push(reply.fields);
    else if (reply instanceof messages.CommandCompleteMessage) Object.assign(result, parseCommandTag(reply.text));
  }
  return result;
}

function toFieldInfo(field: messages.Field): FieldInfo {
  return {
    name: field.name,
    dataTypeID: field.dataTypeID,
    tableID: field.tableID,
    columnID: field.columnID,
    dataTypeSize: field.dataTypeSize,
    dataTypeModifier: field.dataTypeModifier,
    format: "text",
  };
}

function asPostgresError(error: unknown): unknown {
  return error instanceof messages.DatabaseError ? toPostgresError(error) : error;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Runs the functions given to it one at a time, in call order, whatever each one's outcome. */
function promiseQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const result = tail.then(fn);
    tail = result.catch(() => undefined);
    return result;
  };
}
