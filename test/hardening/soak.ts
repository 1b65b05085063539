// A bounded soak: workers send a random mix of link, lookup, unlink, asset read-modify-write,
// document and rejected requests through the whole production path (app → Neon client →
// loopback endpoint → PostgreSQL) until a deadline, keeping score of what was answered. The
// invariants are then checked against the database itself: no duplicate owners, every link
// creation matched by its unlinks, gapless document numbers, no lost asset update, idempotent
// replays answering the original, and the KV cache equal to Postgres after a resync.
import type { Sql } from "../../core/ports/sql.ts";
import { seededRandom } from "../../dev/support/seeded-random.ts";
import type { Harness } from "../support/harness.ts";
import { routes } from "../support/routes.ts";
import { duplicateOwners, kvMismatches, numberingGaps } from "./invariants.ts";

interface SoakOptions {
  durationMs: number;
  concurrency: number;
  /** Seeds the operation mix (the interleaving is up to the machine). */
  seed?: number;
  /** Stops earlier after this many operations (default: 5,000 per second of duration). */
  maxOperations?: number;
}

interface SoakReport {
  /** Operations run; an asset increment is two requests, the others one. */
  operations: number;
  durationMs: number;
  /** operation → status → count */
  answers: Record<string, Record<number, number>>;
  /** Every broken promise found, during the run or after it; empty when all held. */
  violations: string[];
}

const USERS = 6;
const ACCOUNTS = 10;
const TENANTS = 3;
const KEYS_PER_TENANT = 15;
const ASSETS = 4;
const ASSET_TENANT = "soak-assets";
const ADMIN = { sub: "soak-admin", tid: "soak", role: "admin" } as const;

interface Score {
  answers: SoakReport["answers"];
  violations: string[];
  linksCreated: Map<string, number>;
  linksDeleted: Map<string, number>;
  documentsCreated: Map<string, number>;
  /** tenant/key → every docNumber answered for it */
  keyedNumbers: Map<string, Set<number>>;
  assetIncrements: Map<string, number>;
}

type Random = () => number;
type Operation = (harness: Harness, random: Random, score: Score) => Promise<void>;

const pick = (random: Random, count: number) => Math.floor(random() * count);
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/** Records the answer; a status outside `allowed` is a violation. */
function expectStatus(score: Score, operation: string, response: Response, allowed: readonly number[]): number {
  const byStatus = (score.answers[operation] ??= {});
  byStatus[response.status] = (byStatus[response.status] ?? 0) + 1;
  if (!allowed.includes(response.status)) score.violations.push(`${operation} answered ${response.status}`);
  return response.status;
}

const NOT_A_SERVER_ERROR = Array.from({ length: 400 }, (_, i) => 100 + i);

const accountPath = (a: number) => `/v1/links/github/soak-account-${a}`;
const user = (u: number) => ({ sub: `soak-user-${u}`, tid: "soak" });

const operations: Array<[weight: number, Operation]> = [
  [
    4,
    async function link(h, random, score) {
      const a = pick(random, ACCOUNTS);
      const response = await h.request(accountPath(a), { method: "PUT", as: user(pick(random, USERS)) });
      if (expectStatus(score, "link", response, [200, 201, 409]) === 201) bump(score.linksCreated, `soak-account-${a}`);
    },
  ],
  [
    2,
    async function unlink(h, random, score) {
      const a = pick(random, ACCOUNTS);
      const response = await h.request(accountPath(a), { method: "DELETE", as: user(pick(random, USERS)) });
      if (expectStatus(score, "unlink", response, [204, 404]) === 204) bump(score.linksDeleted, `soak-account-${a}`);
    },
  ],
  [
    3,
    async function lookup(h, random, score) {
      const as =
        random() < 0.5 ? user(pick(random, USERS)) : { sub: "soak-service", tid: "soak", role: "service" as const };
      expectStatus(score, "lookup", await h.request(accountPath(pick(random, ACCOUNTS)), { as }), [200, 404]);
    },
  ],
  [
    4,
    async function incrementAsset(h, random, score) {
      const id = `counter-${pick(random, ASSETS)}`;
      const read = await h.request(`/v1/assets/${id}`, { as: { sub: "soak", tid: ASSET_TENANT } });
      if (expectStatus(score, "asset read", read, [200]) !== 200) return;
      const { name } = (await read.json()) as { name: string };
      const write = await h.request(`/v1/assets/${id}`, {
        method: "PATCH",
        as: { sub: "soak", tid: ASSET_TENANT },
        headers: { "if-match": read.headers.get("etag")! },
        body: { name: String(Number(name) + 1) },
      });
      if (expectStatus(score, "asset patch", write, [200, 412]) === 200) bump(score.assetIncrements, id);
    },
  ],
  [
    4,
    async function createDocument(h, random, score) {
      const tenant = `soak-t${pick(random, TENANTS)}`;
      const key = random() < 0.4 ? `key-${pick(random, KEYS_PER_TENANT)}` : undefined;
      const response = await h.request("/v1/documents", {
        method: "POST",
        as: { sub: "soak", tid: tenant },
        headers: key ? { "idempotency-key": key } : {},
        body: { contractId: key ?? "unkeyed" },
      });
      if (expectStatus(score, "document create", response, [201]) !== 201) return;
      const { docNumber } = (await response.json()) as { docNumber: number };
      if (response.headers.get("idempotent-replayed") !== "true") bump(score.documentsCreated, tenant);
      if (key)
        score.keyedNumbers.set(
          `${tenant}/${key}`,
          (score.keyedNumbers.get(`${tenant}/${key}`) ?? new Set()).add(docNumber),
        );
    },
  ],
  [
    1,
    async function listDocuments(h, random, score) {
      const tenant = `soak-t${pick(random, TENANTS)}`;
      const response = await h.request(`/v1/documents?after=${pick(random, 50)}&limit=${1 + pick(random, 100)}`, {
        as: { sub: "soak", tid: tenant },
      });
      expectStatus(score, "document list", response, [200]);
    },
  ],
  // Every route of the table, so a new route is soaked the day it lands: its example request, as
  // an admin of a tenant of its own (the invariants below concern the other tenants' data).
  [
    3,
    async function anyRoute(h, random, score) {
      const route = routes[pick(random, routes.length)]!;
      const { path, ...options } = route.example;
      const response = await h.request(path, {
        ...options,
        as: { sub: "soak-routes", tid: "soak-routes", role: "admin" },
      });
      expectStatus(score, route.key, response, NOT_A_SERVER_ERROR);
    },
  ],
  [
    1,
    async function rejected(h, random, score) {
      const bodies = ['{"name":""}', "{", '{"name":"x","material":"y","extra":1}', '{"name":"a\\u0000"}'];
      const response = await h.request("/v1/assets", {
        method: "POST",
        body: bodies[pick(random, bodies.length)]!,
        headers: { "content-type": "application/json" },
      });
      expectStatus(score, "rejected write", response, [400, 422]);
    },
  ],
];

const totalWeight = operations.reduce((sum, [weight]) => sum + weight, 0);

function chooseOperation(random: Random): Operation {
  let ticket = random() * totalWeight;
  for (const [weight, operation] of operations) {
    ticket -= weight;
    if (ticket < 0) return operation;
  }
  return operations[0]![1];
}

export async function runSoak(harness: Harness, options: SoakOptions): Promise<SoakReport> {
  await seedAssets(harness);
  const score: Score = {
    answers: {},
    violations: [],
    linksCreated: new Map(),
    linksDeleted: new Map(),
    documentsCreated: new Map(),
    keyedNumbers: new Map(),
    assetIncrements: new Map(),
  };
  const started = Date.now();
  const deadline = started + options.durationMs;
  const maxOperations = options.maxOperations ?? Math.ceil(options.durationMs / 1000) * 5_000;
  let operations = 0;
  const worker = async (index: number) => {
    const random = seededRandom((options.seed ?? 1) * 7919 + index);
    while (Date.now() < deadline && operations < maxOperations) {
      operations++;
      await chooseOperation(random)(harness, random, score).catch((error: unknown) => {
        score.violations.push(`request failed: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => worker(i)));
  const durationMs = Date.now() - started;
  score.violations.push(...(await invariantViolations(harness, score)));
  return { operations, durationMs, answers: score.answers, violations: score.violations };
}

async function seedAssets(harness: Harness): Promise<void> {
  for (let i = 0; i < ASSETS; i++) {
    const response = await harness.request(`/v1/assets/counter-${i}`, {
      method: "PUT",
      as: { sub: "soak", tid: ASSET_TENANT },
      headers: { "if-none-match": "*" },
      body: { name: "0", material: "counter" },
    });
    if (response.status !== 201) throw new Error(`could not seed asset counter-${i}: ${response.status}`);
  }
}

async function invariantViolations(harness: Harness, score: Score): Promise<string[]> {
  const { sql } = harness;
  const resync = await harness.request("/v1/admin/links/resync", { method: "POST", as: ADMIN });
  return [
    ...(await duplicateOwners(sql)),
    ...(await unbalancedLinks(sql, score)),
    ...(await numberingGaps(sql, "soak-t%", score.documentsCreated)),
    ...keyedReplays(score),
    ...(await lostUpdates(sql, score)),
    ...(resync.status === 200 ? await kvMismatches(sql, harness.kv) : [`resync answered ${resync.status}`]),
  ];
}

/** Each account exists at the end exactly when its 201s outnumber its 204s, by one. */
async function unbalancedLinks(sql: Sql, score: Score): Promise<string[]> {
  const present = new Set(
    (await sql.query("SELECT external_account_id AS id FROM linked_external_accounts")).map((row) => String(row.id)),
  );
  const violations: string[] = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const id = `soak-account-${a}`;
    const balance = (score.linksCreated.get(id) ?? 0) - (score.linksDeleted.get(id) ?? 0);
    if (balance !== (present.has(id) ? 1 : 0)) {
      violations.push(
        `${id}: ${score.linksCreated.get(id) ?? 0} links created, ${score.linksDeleted.get(id) ?? 0} deleted, present=${present.has(id)}`,
      );
    }
  }
  return violations;
}

function keyedReplays(score: Score): string[] {
  return [...score.keyedNumbers]
    .filter(([, numbers]) => numbers.size !== 1)
    .map(([key, numbers]) => `${key} answered numbers ${[...numbers].join(", ")}`);
}

/** Every successful read-modify-write of a counter asset is in its final value. */
async function lostUpdates(sql: Sql, score: Score): Promise<string[]> {
  const rows = await sql.query("SELECT id, name FROM assets WHERE tenant_id = $1", [ASSET_TENANT]);
  return rows
    .filter((row) => Number(row.name) !== (score.assetIncrements.get(String(row.id)) ?? 0))
    .map(
      (row) =>
        `${String(row.id)}: ${score.assetIncrements.get(String(row.id)) ?? 0} successful increments, value ${String(row.name)}`,
    );
}
