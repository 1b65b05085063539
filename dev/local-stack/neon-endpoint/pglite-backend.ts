// The local endpoint's embedded backend: PGlite (Postgres in WASM), answering in Neon's wire shape.
//
// Statements go to PGlite as raw protocol messages (Parse/Bind/Describe/Execute/Sync) instead of
// through db.query(): db.query() parses values with its type parsers (array types even despite a
// custom `parsers` option) and reports only name and dataTypeID per field. The raw messages
// carry exactly what Neon's proxy forwards: the text Postgres sent and the full field description.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { messages, PGlite, protocol } from "@electric-sql/pglite";
import {
  beginStatement,
  type FieldInfo,
  mayChangeSession,
  NotStartedError,
  parseCommandTag,
  type QueryResult,
  type SqlBackend,
  type Statement,
  toPostgresError,
} from "./backend.ts";
import { newClusterImage } from "./pglite-image.ts";

interface PgliteBackend extends SqlBackend {
  /**
   * From now on requests run as `role` (SET SESSION AUTHORIZATION after every reset), so a
   * statement needing a superuser is refused as on Neon. PGlite is one session authenticated as
   * its superuser, which PostgreSQL lets become the superuser again: the endpoint refuses every
   * statement that could (refused-statements.ts).
   */
  serveAs(role: string): void;
}

/** `dataDir` undefined → in memory; a path → persisted there (the folder is created). */
export async function createPgliteBackend(dataDir?: string): Promise<PgliteBackend> {
  const db = await openCluster(dataDir);
  const superuser = String(
    (await db.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE oid = 10")).rows[0]?.rolname,
  );
  const serialized = promiseQueue();
  let closed = false;
  let role: string | undefined;
  let mustReset = false;

  // PGlite is ONE session, so every request runs alone, and none may hand the next one an
  // open transaction or any other session state (Neon resets a connection before reuse).
  // The reset costs as much as a statement, so it runs after what can change the session.
  function exclusive<T>(fn: () => Promise<T>, signal: AbortSignal | undefined, statements: Statement[]): Promise<T> {
    return serialized(async () => {
      if (closed) throw new NotStartedError("the PGlite backend is closed");
      // A running PGlite statement cannot be interrupted; an abandoned one waiting here never starts.
      if (signal?.aborted) throw new NotStartedError("the request was abandoned before it started");
      try {
        return await fn();
      } catch (error) {
        mustReset = true; // Neon drops a connection that saw an error; one session is reset instead
        throw error;
      } finally {
        if (db.isInTransaction()) await execute(db, { query: "ROLLBACK", params: [] });
        if (mustReset || statements.some(mayChangeSession)) await resetSession();
      }
    });
  }

  async function resetSession(): Promise<void> {
    // DISCARD ALL, spelled out: PGlite runs a script as one implicit transaction, where DISCARD
    // ALL is refused. The session authorization is reset first so nothing is left to a role.
    const steps = [
      "CLOSE ALL",
      `SET SESSION AUTHORIZATION ${quoteIdentifier(superuser)}`,
      "RESET ALL",
      "DEALLOCATE ALL",
      "SELECT pg_advisory_unlock_all()",
      "DISCARD TEMP",
      "DISCARD SEQUENCES",
      "UNLISTEN *",
      "DISCARD PLANS",
    ];
    if (role) steps.push(`SET SESSION AUTHORIZATION ${quoteIdentifier(role)}`);
    await db.exec(steps.join("; "));
    mustReset = false;
  }

  return {
    kind: "pglite",

    serveAs(name) {
      role = name;
      mustReset = true;
    },

    // A single statement that leaves a transaction open (a bare BEGIN) still gets its answer;
    // the rollback in `exclusive` plays the part of Neon discarding that connection.
    query: (statement, signal) => exclusive(() => execute(db, statement), signal, [statement]),

    batch: (statements, options, signal) =>
      exclusive(
        async () => {
          // On an error `exclusive` rolls back: BEGIN … COMMIT either all happens or none of it.
          await execute(db, { query: beginStatement(options), params: [] });
          const results: QueryResult[] = [];
          for (const statement of statements) results.push(await execute(db, statement));
          await execute(db, { query: "COMMIT", params: [] });
          return results;
        },
        signal,
        statements,
      ),

    // Migrations run as the session's superuser, whoever requests are served as.
    exec: (script) =>
      exclusive(
        async () => {
          mustReset = true;
          try {
            // PGlite ignores RESET SESSION AUTHORIZATION once a role was set: name the superuser.
            await db.exec(`SET SESSION AUTHORIZATION ${quoteIdentifier(superuser)}`);
            await db.exec(script);
          } catch (error) {
            throw asPostgresError(error);
          }
        },
        undefined,
        [],
      ),

    close: () =>
      serialized(async () => {
        if (closed) return;
        closed = true;
        await db.close();
      }),
  };
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
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

/** The cluster in `dataDir`; a new one (in memory, or a folder without one) from the image of one (pglite-image.ts). */
async function openCluster(dataDir: string | undefined): Promise<PGlite> {
  if (!dataDir) return PGlite.create({ loadDataDir: await newClusterImage() });
  await mkdir(dataDir, { recursive: true });
  if (existsSync(join(dataDir, "PG_VERSION"))) return PGlite.create({ dataDir });
  return PGlite.create({ dataDir, loadDataDir: await newClusterImage() });
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
