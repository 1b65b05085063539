// The benchmark's workload: operations of the HTTP contract, each with what it must answer and
// how many database round trips the design promises. Each target gets its own accounts, assets
// and tenants (`owner`), and every phase its own fresh links (`tag`), so the targets start every
// phase from the same database and cache state.

import type { BenchClaims, TokenSource } from "../lib/tokens.ts";
import { BASELINE_PATH } from "../measure/kv-baseline/handler.ts";
import type { Expectation, PlannedRequest } from "./request.ts";

export type OperationName =
  | "kv-baseline"
  | "link-hit"
  | "link-miss"
  | "link-strong"
  | "link"
  | "asset-patch"
  | "document-create"
  | "link-sync";
export const operationNames: OperationName[] = [
  "kv-baseline",
  "link-hit",
  "link-miss",
  "link-strong",
  "link",
  "asset-patch",
  "document-create",
  "link-sync",
];
/** What runs when no --operations is given, on the runtimes the bench starts and on deployments. */
export const defaultOperations: Record<"local" | "targets", OperationName[]> = {
  local: ["kv-baseline", "link-hit", "link-miss", "link", "asset-patch", "document-create"],
  targets: ["link-hit", "link-strong", "link", "asset-patch", "document-create"],
};

/** What a run made on a target and removes from it at the end (documents cannot be deleted). */
export interface Made {
  links: { path: string; owner: BenchClaims }[];
}

export interface OperationContext {
  /** Unique per target, e.g. "node". */
  owner: string;
  /** Unique per target and phase, e.g. "node-r2". */
  tag: string;
  /** The run's tenant: every tenant the run uses starts with it. */
  tenant: string;
  count: number;
  concurrency: number;
  tokens: TokenSource;
  /** A statement straight to the bench's own database (never counted); absent on deployments. */
  seed?(query: string, params: string[]): Promise<void>;
  /** A setup request to the target under test (unmeasured). */
  call(planned: PlannedRequest): Promise<Response>;
  /** The target's assets: path → current ETag, kept from phase to phase. */
  etags: Map<string, string>;
  made: Made;
}

export interface Operation {
  label: string;
  expect: Expectation;
  /** Database round trips per request by design: 0 for a KV hit, 1 for each write, 2 for a KV miss. */
  roundTrips: number;
  /** "baseline": sent to the runtime's bare KV get (bench/measure/kv-baseline/), not to the app. */
  target?: "baseline";
  /** What the operation needs beyond a target's URL and a token. */
  needs?: "local-database" | "baseline" | "many-users";
  /** How many links or assets it makes on a target at most (each one DELETE to remove it). */
  creates?(run: CreateCount): number;
  /** Once per target, before its first phase. */
  setup?(context: OperationContext): Promise<void>;
  /** Before each phase (unmeasured): seeds or primes what the phase needs; returns its requests. */
  plan(context: OperationContext): Promise<PlannedRequest[]>;
}

export interface CreateCount {
  requests: number;
  rounds: number;
  warmup: number;
  concurrency: number;
  oneIdentity: boolean;
}

const HIT_LINKS = 16;
/** How many links a KV-hit phase cycles through: one when the run has one identity (one link per provider). */
const hitLinkCount = (oneIdentity: boolean) => (oneIdentity ? 1 : HIT_LINKS);
const SERVICE = (context: OperationContext): BenchClaims => ({
  sub: "bench-service",
  tid: context.tenant,
  role: "service",
});

const bearer = async (context: OperationContext, claims: BenchClaims) => `Bearer ${await context.tokens.token(claims)}`;

const hitLinks = (context: OperationContext) => hitLinkCount(context.tokens.oneIdentity);
/**
 * The links looked up. One identity may link one account per provider, over every target of
 * the run (one database): its one link serves both kinds of lookup on every target.
 */
const lookedUp = (context: OperationContext, kind: "hit" | "strong") =>
  context.tokens.oneIdentity ? "bench-one-" : `${context.owner}-${kind}-`;

/**
 * Links of `prefix` 0…count-1: straight into the bench's own database, or else through the
 * target's API (a user per link, as one account per provider is all a user may link), remembered
 * to be unlinked at the end.
 */
async function seedLinks(context: OperationContext, prefix: string, count: number): Promise<void> {
  if (context.seed) {
    return context.seed(
      "INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id) " +
        "SELECT $3, 'github', $1 || g, $1 || 'user-' || g FROM generate_series(0, $2::int - 1) g",
      [prefix, String(count), context.tenant],
    );
  }
  for (let i = 0; i < count; i++) {
    const owner = { sub: `${prefix}user-${i}`, tid: context.tenant };
    const path = `/v1/links/github/${prefix}${i}`;
    const response = await context.call({
      method: "PUT",
      path,
      headers: { authorization: await bearer(context, owner) },
    });
    await response.arrayBuffer();
    if (response.status !== 201 && response.status !== 200) throw new Error(`PUT ${path}: HTTP ${response.status}`);
    context.made.links.push({ path, owner });
  }
}

const lookup = (authorization: string, prefix: string, i: number, query = ""): PlannedRequest => ({
  method: "GET",
  path: `/v1/links/github/${prefix}${i}${query}`,
  headers: { authorization },
});

const times = <T>(count: number, make: (i: number) => T) => Array.from({ length: count }, (_, i) => make(i));

export const operations: Record<OperationName, Operation> = {
  "kv-baseline": {
    label: "bare KV get (baseline)",
    expect: { status: 200 },
    roundTrips: 0,
    target: "baseline",
    needs: "baseline",
    async setup(context) {
      // About the size of a link lookup's answer.
      const body = JSON.stringify({
        provider: "github",
        externalAccountId: "baseline-0",
        userId: "baseline-user-0",
        tenant: "bench",
      });
      const response = await context.call({ method: "PUT", path: BASELINE_PATH, headers: {}, body });
      if (!response.ok) throw new Error(`PUT ${BASELINE_PATH}: HTTP ${response.status}`);
    },
    plan: async (context) => times(context.count, () => ({ method: "GET", path: BASELINE_PATH, headers: {} })),
  },
  "link-hit": {
    label: "link lookup (KV hit)",
    expect: { status: 200, linkSource: "kv" },
    roundTrips: 0,
    creates: (run) => hitLinkCount(run.oneIdentity),
    setup: (context) => seedLinks(context, lookedUp(context, "hit"), hitLinks(context)),
    async plan(context) {
      const authorization = await bearer(context, SERVICE(context));
      const [prefix, count] = [lookedUp(context, "hit"), hitLinks(context)];
      // Each phase starts with the same warm cache: every hit link looked up once.
      for (let i = 0; i < count; i++) await (await context.call(lookup(authorization, prefix, i))).arrayBuffer();
      return times(context.count, (i) => lookup(authorization, prefix, i % count));
    },
  },
  "link-miss": {
    label: "link lookup (KV miss)",
    expect: { status: 200, linkSource: "db" },
    // The link's read, and the read that confirms its copy once written (core/links/write-back.ts).
    roundTrips: 2,
    // A link in the database but in no KV: only the bench's own database can seed one unseen.
    needs: "local-database",
    async plan(context) {
      await seedLinks(context, `${context.tag}-miss-`, context.count);
      const authorization = await bearer(context, SERVICE(context));
      return times(context.count, (i) => lookup(authorization, `${context.tag}-miss-`, i));
    },
  },
  "link-strong": {
    label: "link lookup (strong)",
    expect: { status: 200, linkSource: "db" },
    roundTrips: 1,
    creates: (run) => hitLinkCount(run.oneIdentity),
    setup: (context) => seedLinks(context, lookedUp(context, "strong"), hitLinks(context)),
    async plan(context) {
      const authorization = await bearer(context, SERVICE(context));
      const [prefix, count] = [lookedUp(context, "strong"), hitLinks(context)];
      return times(context.count, (i) => lookup(authorization, prefix, i % count, "?consistency=strong"));
    },
  },
  link: {
    label: "link (PUT, new)",
    expect: { status: 201 },
    roundTrips: 1,
    needs: "many-users",
    creates: (run) => run.warmup + run.rounds * run.requests,
    async plan(context) {
      // A user links one account per provider: every request is a new user and a new account.
      const owners = times(context.count, (i) => ({ sub: `${context.tag}-user-${i}`, tid: context.tenant }));
      const tokens = await Promise.all(owners.map((owner) => bearer(context, owner)));
      return tokens.map((authorization, i) => {
        const path = `/v1/links/github/${context.tag}-put-${i}`;
        context.made.links.push({ path, owner: owners[i]! });
        return { method: "PUT", path, headers: { authorization } };
      });
    },
  },
  "asset-patch": {
    label: "asset PATCH (If-Match)",
    expect: { status: 200 },
    roundTrips: 1,
    creates: (run) => run.concurrency,
    async setup(context) {
      const authorization = await bearer(context, { sub: "bench", tid: `${context.tenant}-${context.owner}-assets` });
      for (let i = 0; i < context.concurrency; i++) {
        const body = JSON.stringify({ name: `bench ${i}`, material: "steel" });
        const headers = { authorization, "content-type": "application/json" };
        const response = await context.call({ method: "POST", path: "/v1/assets", headers, body });
        await response.arrayBuffer();
        // Without an asset (route missing, runtime failing) the phase still runs and shows its errors.
        context.etags.set(
          response.headers.get("location") ?? `/v1/assets/bench-${i}`,
          response.headers.get("etag") ?? "*",
        );
      }
    },
    async plan(context) {
      const authorization = await bearer(context, { sub: "bench", tid: `${context.tenant}-${context.owner}-assets` });
      const paths = [...context.etags.keys()];
      // Request i goes to asset i mod concurrency, the one load-generator lane i runs on: each
      // lane edits its own asset in sequence, so If-Match always names the current version.
      return times(context.count, (i) => ({
        method: "PATCH",
        path: paths[i % paths.length]!,
        headers: { authorization, "content-type": "application/merge-patch+json" },
        body: JSON.stringify({ material: `alloy ${context.tag}-${i}` }),
        chain: true,
      }));
    },
  },
  "document-create": {
    label: "document create",
    expect: { status: 201 },
    roundTrips: 1,
    async plan(context) {
      const authorization = await bearer(context, { sub: "bench", tid: `${context.tenant}-${context.owner}-docs` });
      return times(context.count, (i) => ({
        method: "POST",
        path: "/v1/documents",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ contractId: `${context.tag}-${i}` }),
      }));
    },
  },
  "link-sync": {
    label: "admin: sync the link feed",
    expect: { status: 200 },
    // An idle sync: one statement (core/links/sync.ts); a feed with changes costs more.
    roundTrips: 1,
    async plan(context) {
      const authorization = await bearer(context, { sub: "bench-admin", tid: context.tenant, role: "admin" });
      return times(context.count, () => ({ method: "POST", path: "/v1/admin/links/sync", headers: { authorization } }));
    },
  },
};
