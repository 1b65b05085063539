// This project's Neon client (edge/neon/neon-http.ts) held to the driver it replaces
// (@neondatabase/serverless 1.2.0), side by side: for the same call, the same request (method,
// URL, headers and body; only the application name in the connection string differs) and the
// same values or the same error back, field by field. First against canned answers (Neon's own
// endpoint, answers Neon gives rarely), then through the local endpoint on PGlite.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type NeonQueryFunction, neon, neonConfig } from "@neondatabase/serverless";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { insertAsset } from "../../core/assets/repository.ts";
import { createDocument } from "../../core/documents/repository.ts";
import { linkAccount } from "../../core/links/repository.ts";
import type { Row, Sql, SqlStatement, TransactionOptions } from "../../core/ports/sql.ts";
import { type LocalStack, startLocalStack } from "../../dev/stack.ts";
import { type NeonHttp, neonHttp } from "../../edge/neon/neon-http.ts";
import {
  expectSameOutcome,
  expectSameRequests,
  outcomeOf,
  recordingFetch,
  routeNeonDriver,
  type SentRequest,
} from "../support/neon-driver.ts";

type Driver = NeonQueryFunction<false, false>;

interface Pair {
  driver: Driver;
  client: NeonHttp;
  sentByDriver: SentRequest[];
  sentByClient: SentRequest[];
}

/** The driver and the client for one database, each noting what it sends before `send` sends it. */
function pairFor(databaseUrl: string, endpoint: string | undefined, send: typeof fetch = fetch): Pair {
  const sentByDriver: SentRequest[] = [];
  const sentByClient: SentRequest[] = [];
  // Process-wide in the driver: this file sets it for each pair and clears it after each test.
  neonConfig.fetchFunction = recordingFetch(sentByDriver, send);
  const driver = neon(endpoint ? routeNeonDriver(databaseUrl, endpoint) : databaseUrl);
  const client = neonHttp({ databaseUrl, fetchEndpoint: endpoint, fetchFunction: recordingFetch(sentByClient, send) });
  return { driver, client, sentByDriver, sentByClient };
}

afterEach(() => {
  neonConfig.fetchFunction = undefined;
});

/** Runs a query on both, one after the other; expects the same requests and outcomes. */
async function expectSameQuery(pair: Pair, text: string, params: unknown[] = []) {
  const theirs = await outcomeOf(pair.driver.query(text, params));
  const ours = await outcomeOf(pair.client.query(text, params));
  expectSameRequests(pair.sentByClient, pair.sentByDriver);
  expectSameOutcome(ours, theirs);
  return ours;
}

async function expectSameTransaction(pair: Pair, statements: SqlStatement[], options: TransactionOptions = {}) {
  const queries = statements.map((s) => pair.driver.query(s.text, [...(s.params ?? [])]));
  const theirs = await outcomeOf(pair.driver.transaction(queries, options));
  const ours = await outcomeOf(pair.client.transaction(statements, options));
  expectSameRequests(pair.sentByClient, pair.sentByDriver);
  expectSameOutcome(ours, theirs);
  return ours;
}

const NEON_URL = "postgres://alice:s3cr%2Fet@ep-cool-name-123456.us-east-2.aws.neon.tech/main?sslmode=require";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("against canned answers", () => {
  const canned = (answer: () => Response, databaseUrl = NEON_URL) =>
    pairFor(databaseUrl, undefined, async () => answer());
  const result = {
    fields: [
      { name: "n", dataTypeID: 23 },
      { name: "at", dataTypeID: 1184 },
      { name: "n", dataTypeID: 25 },
    ],
    rows: [["1", "2024-01-02 03:04:05.678+00", null]],
    command: "SELECT",
    rowCount: 1,
    rowAsArray: true,
  };
  const rows = () => json(200, result);

  it("posts to Neon's endpoint for the host what the driver posts, a query's and a transaction's", async () => {
    const pair = canned(rows);
    const params = [
      42,
      "x",
      null,
      undefined,
      true,
      7n,
      new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)),
      ["a", "b,c"],
      { k: 1 },
    ];
    await expectSameQuery(pair, "SELECT $1, $2", params);
    expect(pair.sentByClient[0]?.url).toBe("https://api.us-east-2.aws.neon.tech/sql");
    const batch = () => json(200, { results: [result, { fields: [], rows: [] }] });
    const statements = [{ text: "SELECT 1" }, { text: "SELECT $1", params: ["x"] }];
    for (const options of [{}, { isolationLevel: "RepeatableRead", readOnly: true, deferrable: false }] as const) {
      await expectSameTransaction(canned(batch), statements, options);
    }
  });

  it("keeps the connection string's parameters, and an application name it gives", async () => {
    for (const databaseUrl of [
      NEON_URL,
      "postgresql://bob@ep-x.eu-central-1.aws.neon.tech:5432/db?application_name=mine",
    ]) {
      await expectSameQuery(canned(rows, databaseUrl), "SELECT 1");
    }
  });

  it.each<[string, () => Response]>([
    [
      "a Postgres error (400) with its fields",
      () => json(400, { message: "duplicate key", code: "23505", constraint: "k", detail: null, table: "t" }),
    ],
    ["a 400 that is not JSON", () => new Response("<html>bad</html>", { status: 400 })],
    ["the endpoint's 503", () => new Response("not started", { status: 503 })],
    ["a gateway's 502", () => new Response("bad gateway", { status: 502 })],
    ["a 200 that is not JSON", () => new Response("<html>ok</html>", { status: 200 })],
  ])("fails as the driver does on %s", async (_, answer) => {
    await expectSameQuery(canned(answer), "SELECT 1");
    await expectSameTransaction(canned(answer), [{ text: "SELECT 1" }]);
  });

  it("fails as the driver does on a transaction answered without results", async () => {
    await expectSameTransaction(
      canned(() => json(200, { rows: [] })),
      [{ text: "SELECT 1" }],
    );
  });

  it("fails as the driver does when nothing answers", async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    await new Promise((done) => server.close(done));
    const closed = `http://127.0.0.1:${port}/sql`;
    await expectSameQuery(pairFor(`postgres://u:p@127.0.0.1:${port}/db`, closed), "SELECT 1");
  });
});

describe("through the local endpoint on PGlite", () => {
  let stack: LocalStack;
  let pair: () => Pair;
  beforeAll(async () => {
    stack = await startLocalStack();
    pair = () => pairFor(stack.databaseUrl, stack.neonFetchEndpoint);
  });
  afterAll(() => stack?.close());

  it("parses every scalar type as the driver does", async () => {
    await expectSameQuery(
      pair(),
      `SELECT $1::int8 AS big, $2::int4 AS i4, $3::int2 AS i2, $4::float8 AS f8, $5::float4 AS f4,
              $6::numeric AS num, $7::bool AS yes, $8::text AS t, $9::json AS j, $10::jsonb AS jb,
              $11::timestamptz AS tz, $12::timestamp AS ts, $13::date AS d, $14::uuid AS u, $15::oid AS o,
              $16::text AS nothing, $17::text AS missing, $18::int8 AS bigint, 'NaN'::float8 AS nan,
              'infinity'::timestamptz AS forever, '-infinity'::date AS never, '0099-03-04 05:06:07+00'::timestamptz AS old,
              '0044-03-15 BC'::date AS ides, '2024-06-01 12:00:00.123456-05:30'::timestamptz AS offset,
              '12:34:56'::time AS clock, '1 day 02:03:04'::interval::text AS span, xid8 '42'::text AS x8,
              '{"a": [1, "x"]}'::jsonb -> 'a' AS part, 1 AS dup, 2 AS dup`,
      [
        "9007199254740993",
        42,
        -7,
        1.5,
        2.25,
        "3.14",
        true,
        'say "hi", \\ done',
        { a: [1, "x"], b: null },
        { nested: { deep: true } },
        new Date("2024-01-02T03:04:05.678Z"),
        "2024-01-02 03:04:05.678",
        "2024-01-02",
        "5f3c0e4e-1b3a-4c39-9f6c-2a0d8e1f4b7a",
        26,
        null,
        undefined,
        123n,
      ],
    );
  });

  it("parses arrays and encodes array parameters as the driver does", async () => {
    await expectSameQuery(
      pair(),
      `SELECT $1::text[] AS words, $2::int[] AS ints, $3::bool[] AS flags, $4::int8[] AS bigs,
              $5::float8[] AS floats, $6::numeric[] AS nums, $7::timestamptz[] AS times, $8::jsonb[] AS docs,
              $9::uuid[] AS ids, $10::date[] AS days, $11::varchar[] AS names, $12::int[] AS grid,
              '{}'::int[] AS none, ARRAY[NULL, 'x']::text[] AS holes, ARRAY['{"a":1}']::json[] AS jsons`,
      [
        ["x", 'y "z"', "back\\slash", null, "", "a,b", "{c}", "NULL"],
        [1, 2, null],
        [true, false],
        ["9007199254740993", "-1"],
        [1.5, -0.25],
        ["3.14", "-0"],
        [new Date("2024-01-02T03:04:05.678Z"), null],
        [{ a: 1 }, { b: 'q"uote' }],
        ["5f3c0e4e-1b3a-4c39-9f6c-2a0d8e1f4b7a"],
        ["2024-01-02"],
        ["v"],
        [
          [1, 2],
          [3, 4],
        ],
      ],
    );
  });

  it("encodes bytes and objects that know their Postgres form as the driver does", async () => {
    const custom = { toPostgres: () => "from toPostgres" };
    const listed = { toPostgres: () => ["a", "b"] };
    await expectSameQuery(
      pair(),
      `SELECT encode($1::bytea, 'hex') AS buffer, encode($2::bytea, 'hex') AS view, $3::text AS custom,
              $4::text[] AS listed, array_length($5::bytea[], 1) AS n, encode(($5::bytea[])[1], 'hex') AS first`,
      [Buffer.from([0, 1, 254, 255]), new Uint8Array([1, 2, 3]), custom, listed, [Buffer.from([9, 10])]],
    );
  });

  it("runs transactions with their options and answers each statement's rows", async () => {
    const statements = [
      {
        text: "SELECT current_setting('transaction_isolation') AS level, current_setting('transaction_read_only') AS ro",
      },
      { text: "SELECT $1::int AS n, '2024-05-06 07:08:09.5+02'::timestamptz AS at", params: [7] },
    ];
    await expectSameTransaction(pair(), statements);
    await expectSameTransaction(pair(), statements, {
      isolationLevel: "Serializable",
      readOnly: true,
      deferrable: true,
    });
    await expectSameTransaction(pair(), statements, {
      isolationLevel: "ReadCommitted",
      readOnly: false,
      deferrable: false,
    });
  });

  it("reports Postgres errors with the same fields", async () => {
    await stack.ownerExec(
      "CREATE TABLE wire_things (id int PRIMARY KEY, n int CONSTRAINT wire_n_positive CHECK (n > 0))",
    );
    await pair().client.query("INSERT INTO wire_things VALUES (1, 1)", []);
    const insert = "INSERT INTO wire_things VALUES ($1, $2)";
    await expectSameQuery(pair(), insert, [1, 1]); // unique violation
    await expectSameQuery(pair(), insert, [2, -1]); // check violation
    await expectSameQuery(pair(), "SELEC 1"); // syntax error, with its position
    await expectSameQuery(pair(), "SELECT 1 / $1::int", [0]); // division by zero
    await expectSameTransaction(pair(), [
      { text: insert, params: [3, 3] },
      { text: insert, params: [3, 3] },
    ]);
    await expectSameTransaction(pair(), [{ text: insert, params: [4, 4] }], { readOnly: true });
  });

  it("reports the endpoint's refusals the same way", async () => {
    const url = new URL(stack.databaseUrl);
    url.password = "wrong";
    await expectSameQuery(pairFor(url.toString(), stack.neonFetchEndpoint), "SELECT 1"); // 28P01
    await expectSameQuery(pairFor(stack.databaseUrl, stack.neonFetchEndpoint.replace("/sql", "/nowhere")), "SELECT 1");
    await expectSameQuery(pair(), "COPY wire_things TO STDOUT");
  });

  it("reads every shape the app's repositories return", async () => {
    const sql = portOver(pair().client);
    await seed(sql);
    const reads: Array<[string, unknown[]]> = [
      ["SELECT provider, external_account_id, user_id, display_name, linked_at, id FROM linked_external_accounts", []],
      ["SELECT id, name, material, status, etag, updated_at, created_at FROM assets", []],
      [
        "SELECT id, tenant_id, doc_number, contract_id, title, created_at, request_fingerprint, idempotency_key FROM documents",
        [],
      ],
      ["SELECT txid, txid::text AS t, id, tenant_id, provider, external_account_id, changed_at FROM link_changes", []],
      ["SELECT count(*)::int AS n, count(*) AS big, (xmax = 0) AS fresh FROM assets GROUP BY xmax = 0", []],
      ["SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon", []],
    ];
    for (const [text, params] of reads) await expectSameQuery(pair(), text, params);
  });
});

/** The SQL port over the client alone, as the app's repositories call it. */
function portOver(client: NeonHttp): Sql {
  return {
    query: async <T extends Row = Row>(text: string, params: readonly unknown[] = []) =>
      (await client.query(text, params)) as T[],
    transaction: (statements, options = {}) => client.transaction(statements, options),
  };
}

/** A link, its change, an asset and a document with an Idempotency-Key, written by the app's own statements. */
async function seed(sql: Sql): Promise<void> {
  await linkAccount(sql, {
    tenantId: "acme",
    provider: "github",
    externalAccountId: "wire-1",
    userId: "alice",
    displayName: "Alice",
    replaceDisplayName: true,
  });
  await insertAsset(sql, "acme", "wire-chair", { name: "Chair", material: "oak" });
  await createDocument(sql, {
    tenantId: "acme",
    contractId: "C-1",
    title: null,
    idempotency: { key: "k-1", fingerprint: "f-1", ttlSeconds: 86_400 },
  });
}
