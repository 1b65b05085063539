// The release migrator's session over postgres.js: what the migrator relies on of it (its startup
// settings, text values, a connection that outlives an idle break) and what sslmode=require means
// on the wire (the certificate is verified).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TLSSocket } from "node:tls";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { postgresMigrationSession } from "./postgres.ts";

describeWithPostgres("postgresMigrationSession", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());

  it("starts with its own settings beside the URL's options, and reads every value as text", async () => {
    const url = new URL(db.url);
    url.searchParams.set("options", "-c work_mem=5MB");
    const session = postgresMigrationSession(url.toString());
    try {
      const { rows } = await session.query({
        query:
          "SELECT current_setting('statement_timeout'), current_setting('lock_timeout'), current_setting('work_mem'), 1::int, true, $1::jsonb, NULL",
        params: ['{"a": 1}'],
      });
      expect(rows).toEqual([["0", "500ms", "5MB", "1", "t", '{"a": 1}', null]]);
    } finally {
      await session.close();
    }
  });

  it("rolls back a script that failed inside its BEGIN, and answers after its idle connection was killed", async () => {
    const session = postgresMigrationSession(db.url);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await expect(session.exec("BEGIN; CREATE TABLE kept_out (id int); SELECT 1/0; COMMIT;")).rejects.toThrow(
        /division by zero/,
      );
      const [[pid]] = (await session.query({ query: "SELECT pg_backend_pid()", params: [] })).rows as [[string]];
      // With a timeout, pg_terminate_backend returns once the backend has ended.
      await admin.query("SELECT pg_terminate_backend($1, 5000)", [pid]);
      // Whether the next statement fails depends on whether postgres.js saw the socket close
      // before sending it; either way the one after answers, on a new connection.
      await session.query({ query: "SELECT 1", params: [] }).catch(() => undefined);
      const { rows } = await session.query({
        query: "SELECT to_regclass('kept_out')::text, pg_backend_pid()::text",
        params: [],
      });
      expect(rows).toEqual([[null, expect.not.stringMatching(`^${pid}$`)]]);
    } finally {
      await admin.end();
      await session.close();
    }
  });
});

describe("postgresMigrationSession and a server that closes every connection during startup", () => {
  it("fails with one line naming where it connects once the deadline has passed, and stops trying", async () => {
    let attempts = 0;
    const server = createServer((socket) => {
      attempts++;
      socket.end(); // no ErrorResponse: postgres.js would reconnect forever
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const session = postgresMigrationSession(`postgres://u@127.0.0.1:${port}/db`, { connectDeadlineMs: 300 });
    try {
      await expect(session.exec("SELECT 1")).rejects.toThrow(`no database session within 0.3 s from 127.0.0.1:${port}`);
      const after = attempts;
      expect(after).toBeGreaterThan(0);
      // Trying on, it would have made dozens more by now; one may have been under way.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(attempts).toBeLessThanOrEqual(after + 1);
    } finally {
      await session.close();
      server.close();
    }
  });
});

describe("postgresMigrationSession over TLS", () => {
  let dir: string;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "migrate-tls-"));
    const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
    await promisify(execFile)("openssl", [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1"],
      ...["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", cert],
    ]);
    server = await selfSignedPostgres(await readFile(key), await readFile(cert));
    const { port } = server.address() as { port: number };
    url = `postgres://u:p@localhost:${port}/db?sslmode=require`;
  });
  afterAll(async () => {
    server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("sslmode=require refuses a certificate no trusted CA signed", async () => {
    const session = postgresMigrationSession(url);
    try {
      await expect(session.query({ query: "SELECT 1", params: [] })).rejects.toThrow(/self-signed certificate/);
    } finally {
      await session.close();
    }
  });

  it("sslrootcert naming that certificate lets the handshake through", async () => {
    const session = postgresMigrationSession(`${url}&sslrootcert=${join(dir, "cert.pem")}`);
    try {
      // Past the handshake, the server refuses the session: what fails is no longer TLS.
      await expect(session.query({ query: "SELECT 1", params: [] })).rejects.toThrow("no database here");
    } finally {
      await session.close();
    }
  });
});

/** PostgreSQL's ErrorResponse message: FATAL, `message`. */
function fatalError(message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0C08004\0M${message}\0\0`);
  const length = Buffer.alloc(4);
  length.writeInt32BE(fields.length + 4);
  return Buffer.concat([Buffer.from("E"), length, fields]);
}

/** A server that accepts PostgreSQL's SSLRequest, completes the TLS handshake, then refuses the session. */
async function selfSignedPostgres(key: Buffer, cert: Buffer): Promise<Server> {
  const server = createServer((socket) => {
    socket.once("data", () => {
      socket.write("S");
      const tls = new TLSSocket(socket, { isServer: true, key, cert });
      tls.once("data", () => tls.end(fatalError("no database here")));
      tls.on("error", () => socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}
