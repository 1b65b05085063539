// No acknowledged write is lost: `kill -9` in the middle of a stream of creates, again and again,
// then every acknowledged document is there and the numbers have no gap. And a stop (SIGTERM, or
// Ctrl-C to `npm start`) under load answers every write it committed: nothing in the database
// went unacknowledged.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteBackend } from "../../dev/local-stack/neon-endpoint/pglite-backend.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { signToken } from "../../dev/support/tokens.ts";
import { expectNoResetOnStop } from "../deploy/stop-under-load.ts";
import { npmStartServerPid, startServer } from "./processes.ts";

const TENANT = "crash";
const WRITERS = 6;

interface Stream {
  /** contractId → docNumber, for every 201 received */
  acknowledged: Map<string, number>;
  /** Requests whose answer never came (the process went away mid-request). */
  unanswered: number;
  /** Resolves at the first acknowledged write: the stream is really flowing. */
  flowing: Promise<void>;
  done: Promise<void>;
}

/** Writers creating documents until the server stops answering. */
async function streamCreates(url: string, label: string): Promise<Stream> {
  const authorization = `Bearer ${await signToken({ sub: "writer", tid: TENANT })}`;
  const acknowledged = new Map<string, number>();
  let flowing = () => {};
  const stream: Stream = {
    acknowledged,
    unanswered: 0,
    flowing: new Promise<void>((resolve) => (flowing = resolve)),
    done: Promise.resolve(),
  };
  let next = 0;
  const writer = async () => {
    for (;;) {
      const contractId = `${label}-${next++}`;
      let response: Response;
      try {
        response = await fetch(`${url}/v1/documents`, {
          method: "POST",
          headers: { authorization, "content-type": "application/json" },
          body: JSON.stringify({ contractId }),
        });
      } catch {
        stream.unanswered++;
        return; // the server is gone (refused or cut off)
      }
      if (response.status === 201) {
        acknowledged.set(contractId, ((await response.json()) as { docNumber: number }).docNumber);
        flowing();
      } else await response.body?.cancel();
    }
  };
  stream.done = Promise.all(Array.from({ length: WRITERS }, writer)).then(() => {});
  return stream;
}

type Rows = Array<{ contract_id: string; doc_number: string }>;

function suite(
  open: () => Promise<{ env: Record<string, string>; read: () => Promise<Rows>; dispose(): Promise<void> }>,
) {
  return () => {
    let target: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      target = await open();
    });
    afterAll(() => target?.dispose());

    it("loses no acknowledged write across repeated kill -9, and numbers stay gapless", async () => {
      const acknowledged = new Map<string, number>();
      for (let round = 0; round < 3; round++) {
        const server = await startServer(target.env);
        const stream = await streamCreates(server.url, `kill${round}`);
        await stream.flowing;
        await new Promise((done) => setTimeout(done, 200 + Math.random() * 800));
        server.child.kill("SIGKILL");
        await server.exited;
        await stream.done;
        expect(stream.acknowledged.size, `round ${round} acknowledged writes`).toBeGreaterThan(0);
        for (const [id, number] of stream.acknowledged) acknowledged.set(id, number);
      }
      const rows = await target.read();
      const stored = new Map(rows.map((row) => [row.contract_id, Number(row.doc_number)]));
      for (const [id, number] of acknowledged) expect(stored.get(id), `acknowledged ${id}`).toBe(number);
      const numbers = rows.map((row) => Number(row.doc_number)).sort((a, b) => a - b);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    }, 180_000);

    // `sentTo`: the server process alone, npm alone, or npm's whole process group (as a terminal).
    const stops = [
      { how: "SIGTERM to the server", label: "term", sentTo: "server", signals: ["SIGTERM"] },
      // A terminal's Ctrl-C signals the whole group: npm (which relays it) and the server both get SIGINT.
      { how: "Ctrl-C to npm start's process group", label: "ctrlc", sentTo: "group", signals: ["SIGINT"] },
      // What a process manager does: SIGTERM to npm alone, which relays it to the server.
      { how: "SIGTERM to npm start alone", label: "npmterm", sentTo: "npm", signals: ["SIGTERM"] },
      // A server too busy to take the signal at once (an embedded query holding its event loop):
      // nothing between npm and the server may give up on it and kill it.
      {
        how: "Ctrl-C to npm start's process group while the server is frozen",
        label: "frozen",
        sentTo: "group",
        signals: ["SIGINT"],
        frozenMs: 300,
      },
      // What the server sees when the runner also relays that Ctrl-C: the same signal twice at once.
      {
        how: "SIGINT twice at once, as a runner relays a Ctrl-C",
        label: "relayed",
        sentTo: "server",
        signals: ["SIGINT", "SIGINT"],
      },
    ] as const;
    it.each(stops)(
      "answers, on $how under load, every write it committed",
      async ({ label, sentTo, signals, ...stop }) => {
        const server = await startServer(target.env, [], { asNpmStart: sentTo !== "server" });
        const stream = await streamCreates(server.url, label);
        await stream.flowing;
        await new Promise((done) => setTimeout(done, 500));
        const frozenMs = "frozenMs" in stop ? stop.frozenMs : 0;
        const frozen = frozenMs ? npmStartServerPid(server.child.pid!) : undefined;
        if (frozen) process.kill(frozen, "SIGSTOP");
        for (const signal of signals) {
          if (sentTo === "group") process.kill(-server.child.pid!, signal);
          else server.child.kill(signal);
        }
        if (frozen) {
          await new Promise((done) => setTimeout(done, frozenMs));
          process.kill(frozen, "SIGCONT");
        }
        // npm, signalled too, may end by that signal once the server has exited; the server's own
        // clean exit shows in its last line.
        expect([0, ...(sentTo === "server" ? [] : signals)], server.output()).toContain(await server.exited);
        expect(server.output()).toContain("Stopped: every request answered, database closed.");
        await stream.done;
        const committed = (await target.read()).filter((row) => row.contract_id.startsWith(`${label}-`));
        expect(committed.length).toBeGreaterThan(0);
        for (const row of committed) {
          expect(stream.acknowledged.get(row.contract_id), `${row.contract_id} committed unanswered`).toBe(
            Number(row.doc_number),
          );
        }
      },
      120_000,
    );
  };
}

describe(
  "crash and stop [pglite]",
  suite(async () => {
    const dir = await mkdtemp(join(tmpdir(), "crash-"));
    const folder = join(dir, "pglite");
    return {
      env: { PGLITE_DATA_DIR: folder },
      async read() {
        const backend = await createPgliteBackend(folder);
        try {
          const result = await backend.query({
            query: "SELECT contract_id, doc_number FROM documents WHERE tenant_id = $1 ORDER BY doc_number",
            params: [TENANT],
          });
          return result.rows.map(([contract_id, doc_number]) => ({
            contract_id: contract_id!,
            doc_number: doc_number!,
          }));
        } finally {
          await backend.close();
        }
      },
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  }),
);

describeWithPostgres(
  "crash and stop [postgres]",
  suite(async () => {
    const database: TestDatabase = await createTestDatabase();
    return {
      env: { DATABASE_URL: database.url },
      async read() {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const sql = "SELECT contract_id, doc_number::text FROM documents WHERE tenant_id = $1 ORDER BY doc_number";
          return (await client.query(sql, [TENANT])).rows as Rows;
        } finally {
          await client.end();
        }
      },
      dispose: () => database.drop(),
    };
  }),
);

// How a stop treats a connection does not depend on the database behind: PostgreSQL, whose stack
// starts faster than PGlite's, ten times over.
describeWithPostgres("ten stops of npm start [postgres]", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it("answers every request that reached it across ten stops under keyed creates on kept-alive connections", async () => {
    await expectNoResetOnStop(async (round) => {
      const server = await startServer({ DATABASE_URL: database.url });
      return {
        url: server.url,
        stop: () => {
          server.child.kill(round % 2 === 0 ? "SIGTERM" : "SIGINT");
          return server.exited;
        },
      };
    });
  }, 600_000);
});
