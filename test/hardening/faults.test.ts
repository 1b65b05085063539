// The database endpoint down, hanging, slow, failing or talking nonsense: every request that
// needs it answers in bounded time 503 database_unavailable with Retry-After when nothing can
// have been written, or (a write that may have reached the database) 504 database_outcome_unknown;
// it writes nothing (or, when only the answer was lost, something whole), and the first request after recovery
// succeeds. The app talks to the database through its SQL port (Neon's driver) and a faulty endpoint
// that relays to the real local one; the suite reads the database behind it directly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";
import { type Fault, type FaultyEndpoint, startFaultyEndpoint } from "../support/faulty-endpoint.ts";
import { buildRequest, type Harness, type RequestOptions, startHarness } from "../support/harness.ts";
import { expectProblem } from "../support/problems.ts";
import { numberingGaps } from "./invariants.ts";
import { type DatabaseSnapshot, snapshotter } from "./support.ts";

// Short, so hanging faults cost little (the point is that the client gives up at all), yet
// long enough for a healthy round trip on a busy machine.
const TIMEOUT_MS = 1_000;
const ADMIN = { sub: "ops", tid: "acme", role: "admin" } as const;

let harness: Harness;
let faulty: FaultyEndpoint;
let app: App;
let snapshot: () => Promise<DatabaseSnapshot>;

beforeAll(async () => {
  harness = await startHarness({ backend: "pglite" });
  faulty = await startFaultyEndpoint(harness.stack.neonFetchEndpoint, harness.stack.databaseUrl);
  const sql = createNeonSql({ databaseUrl: faulty.databaseUrl(), fetchEndpoint: faulty.url, timeoutMs: TIMEOUT_MS });
  const settings = parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET });
  app = createApp({ sql, kv: createMemoryKv(), settings, runtime: "node", logger: silentLogger });
  snapshot = await snapshotter(harness.sql);
  // Something to read and change through the faulty path.
  expect((await harness.request("/v1/links/github/seeded", { method: "PUT" })).status).toBe(201);
  const seeded = { name: "Seed", material: "oak" };
  const asset = await harness.request("/v1/assets/seed", {
    method: "PUT",
    headers: { "if-none-match": "*" },
    body: seeded,
  });
  expect(asset.status).toBe(201);
});

afterAll(async () => {
  await faulty?.close();
  await harness?.close();
});

const call = async (path: string, options: RequestOptions = {}) => app.fetch(await buildRequest(path, options));

/** One request per kind of database work the API does; `n` keeps each run's writes apart. */
const probes = (n: string): Array<[string, string, RequestOptions]> => [
  // A user of its own: a user holds one account per provider.
  [
    "link",
    `/v1/links/github/fault-${n}`,
    { method: "PUT", as: { sub: `user-${n}` }, body: { displayName: `Fault ${n}` } },
  ],
  ["strong lookup", "/v1/links/github/seeded?consistency=strong", {}],
  ["my links", "/v1/me/links", {}],
  ["resync", "/v1/admin/links/resync", { method: "POST", as: ADMIN }],
  ["sync", "/v1/admin/links/sync", { method: "POST", as: ADMIN }],
  ["asset create", "/v1/assets", { method: "POST", body: { name: `Asset ${n}`, material: "steel" } }],
  ["asset read", "/v1/assets/seed", {}],
  ["asset patch", "/v1/assets/seed", { method: "PATCH", headers: { "if-match": "*" }, body: { material: `m-${n}` } }],
  [
    "asset import",
    "/v1/assets/import",
    {
      method: "POST",
      headers: { "content-type": "text/csv" },
      body: `id,name,material,source_etag\nnone-${n},a,b,abc\n`,
    },
  ],
  [
    "document create",
    "/v1/documents",
    { method: "POST", headers: { "idempotency-key": `k-${n}` }, body: { contractId: `c-${n}` } },
  ],
  ["document list", "/v1/documents?limit=5", {}],
  ["document read", "/v1/documents/1", {}],
];

async function expectUnavailable(response: Response) {
  await expectProblem(response, 503, "database_unavailable");
  expect(response.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
}

/** The request may have reached the database unanswered: said so, with no invitation to retry blindly. */
async function expectOutcomeUnknown(response: Response) {
  await expectProblem(response, 504, "database_outcome_unknown");
  expect(response.headers.get("retry-after")).toBeNull();
}

type WriteAnswer = "unavailable" | "unknown";

/** Reads always answer 503 (a lost read wrote nothing); writes as the fault allows. */
async function expectRefused(response: Response, method: string | undefined, writes: WriteAnswer) {
  if (!method || method === "GET" || writes === "unavailable") return expectUnavailable(response);
  return expectOutcomeUnknown(response);
}

/** Postgres' refusal as the endpoint relays it: HTTP 400 with its fields. */
const postgresSays = (code: string, message: string): Fault => ({
  answer: { status: 400, text: JSON.stringify({ message, code }) },
});

// What a write is told: "unavailable" only when the request provably never reached the database
// (refused connection, the endpoint's own 503, a SQLSTATE that rolled back); otherwise "unknown".
const faultsBeforeTheDatabase: Array<[string, Fault, WriteAnswer]> = [
  ["refuses connections", "down", "unavailable"],
  ["drops the connection", { answer: "reset" }, "unknown"],
  ["never answers", { answer: "hang" }, "unknown"],
  ["sends half a body, then stalls", { answer: "slow-body" }, "unknown"],
  ["answers 500", { answer: { status: 500, text: "internal server error" } }, "unknown"],
  ["answers 502", { answer: { status: 502, text: "bad gateway" } }, "unknown"],
  ["answers 503", { answer: { status: 503, text: "" } }, "unavailable"],
  ["answers 200 with HTML", { answer: "not-json" }, "unknown"],
  ["answers 400 with HTML", { answer: "not-json-400" }, "unknown"],
  // Postgres itself saying it cannot serve now: SQLSTATE classes 57P0 and 53, not a refusal.
  ["says the database is starting up", postgresSays("57P03", "the database system is starting up"), "unavailable"],
  ["says there are too many connections", postgresSays("53300", "sorry, too many clients already"), "unavailable"],
  [
    "says the statement timed out",
    postgresSays("57014", "canceling statement due to statement timeout"),
    "unavailable",
  ],
  ["says a lock wait timed out", postgresSays("55P03", "canceling statement due to lock timeout"), "unavailable"],
  ["reports a deadlock", postgresSays("40P01", "deadlock detected"), "unavailable"],
  ["reports a serialization failure", postgresSays("40001", "could not serialize access"), "unavailable"],
  ["is read-only", postgresSays("25006", "cannot execute INSERT in a read-only transaction"), "unavailable"],
  // A session ended under its statement (admin_shutdown, crash_shutdown) may end after the
  // commit, and SQLSTATEs 08007 and 40003 say the outcome is unknown: not "nothing written".
  [
    "ends the session by an administrator's command",
    postgresSays("57P01", "terminating connection due to administrator command"),
    "unknown",
  ],
  [
    "ends the session for another process' crash",
    postgresSays("57P02", "terminating connection because of crash of another server process"),
    "unknown",
  ],
  ["says the transaction's resolution is unknown", postgresSays("08007", "transaction resolution unknown"), "unknown"],
  ["says the statement's completion is unknown", postgresSays("40003", "statement completion unknown"), "unknown"],
];

describe.each(faultsBeforeTheDatabase)("when the database endpoint %s", (_, fault, writes) => {
  it("answers 503 (or, for a write whose fate it cannot know, 504 outcome unknown), writing nothing", async () => {
    await faulty.setFault(fault);
    const before = await snapshot();
    const forwarded = faulty.forwarded();
    // All at once: a hanging endpoint costs one timeout, and concurrency must not change the answer.
    await Promise.all(
      probes("down").map(async ([name, path, options]) => {
        const response = await call(path, options);
        await expectRefused(response, options.method, writes).catch((error: Error) => {
          throw new Error(`${name}: ${error.message}`);
        });
      }),
    );
    expect(faulty.forwarded()).toBe(forwarded);
    expect(await snapshot()).toEqual(before);
  });

  it("is not ready, but still alive", async () => {
    await faulty.setFault(fault);
    const ready = await call("/readyz", { as: null });
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("5"); // docs/API.md: Retry-After: 5
    expect((await call("/healthz", { as: null })).status).toBe(200);
  });

  it("serves the very first request after recovery, then everything else", async () => {
    await faulty.setFault(fault);
    await expectUnavailable(await call("/v1/me/links"));
    await faulty.setFault("none");
    const tag = `after-${Math.random().toString(36).slice(2, 8)}`;
    for (const [name, path, options] of probes(tag)) {
      const response = await call(path, options);
      expect(response.status, `${name} after recovery`).toBeLessThan(300);
    }
  });
});

// The statement ran and committed; only its answer was lost on the way back. The client is told
// the outcome is unknown (never "not written"), the write is whole, and a retry converges.
const answersLostAfterCommit: Array<[string, Fault]> = [
  ["is dropped", { answer: "reset", forward: true }],
  ["never comes", { answer: "hang", forward: true }],
  ["stalls half-way", { answer: "slow-body", forward: true }],
  ["is replaced by a 502", { answer: { status: 502, text: "bad gateway" }, forward: true }],
  ["is replaced by HTML", { answer: "not-json", forward: true }],
];

describe.each(answersLostAfterCommit)("when the answer to a committed write %s", (_, fault) => {
  const tag = () => Math.random().toString(36).slice(2, 10);

  it("a retried document with its Idempotency-Key replays the one document, leaving no gap", async () => {
    const key = `lost-${tag()}`;
    const request = { method: "POST", headers: { "idempotency-key": key }, body: { contractId: key } };
    await faulty.setFault(fault);
    await expectOutcomeUnknown(await call("/v1/documents", request));
    await faulty.setFault("none");
    const retry = await call("/v1/documents", request);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    const rows = await harness.sql.query(
      "SELECT doc_number FROM documents WHERE tenant_id = 'acme' AND idempotency_key = $1",
      [key],
    );
    expect(rows).toHaveLength(1);
    expect(((await retry.json()) as { docNumber: number }).docNumber).toBe(Number(rows[0]!.doc_number));
    expect(await numberingGaps(harness.sql, "%")).toEqual([]);
  });

  it("a retried link finds the whole link already made for the caller", async () => {
    const account = `lost-${tag()}`;
    const request = { method: "PUT", as: { sub: account }, body: { displayName: "Whole" } };
    await faulty.setFault(fault);
    await expectOutcomeUnknown(await call(`/v1/links/github/${account}`, request));
    await faulty.setFault("none");
    const retry = await call(`/v1/links/github/${account}`, request);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ userId: account, displayName: "Whole" });
  });

  it("an import is applied to every row or to none", async () => {
    const ids = [`imp-${tag()}`, `imp-${tag()}`, `imp-${tag()}`];
    const etags: string[] = [];
    for (const id of ids) {
      const created = await harness.request(`/v1/assets/${id}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { name: "before", material: "clay" },
      });
      etags.push(created.headers.get("etag")!.replaceAll('"', ""));
    }
    const csv = ["id,name,material,source_etag", ...ids.map((id, i) => `${id},after,clay,${etags[i]}`)].join("\n");
    await faulty.setFault(fault);
    await expectOutcomeUnknown(
      await call("/v1/assets/import", { method: "POST", headers: { "content-type": "text/csv" }, body: csv }),
    );
    await faulty.setFault("none");
    const names = await harness.sql.query(
      "SELECT name FROM assets WHERE tenant_id = 'acme' AND id = ANY ($1::text[])",
      [ids],
    );
    expect(names.map((row) => row.name)).toEqual(["after", "after", "after"]);
  });
});
