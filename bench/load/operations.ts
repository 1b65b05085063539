// The benchmark's workload: five operations of the HTTP contract, each with what it must answer
// and how many database round trips the design promises. Each runtime gets its own accounts,
// assets and tenant (`owner`), and every phase its own fresh links (`tag`), so the runtimes start
// every phase from the same database and cache state.
import { BASELINE_PATH } from "../../dev/kv-baseline/handler.ts";
import type { TokenClaims } from "../../test/support/tokens.ts";
import type { Expectation, PlannedRequest } from "./request.ts";

export type OperationName = "kv-baseline" | "link-hit" | "link-miss" | "link" | "asset-patch" | "document-create";
export const operationNames: OperationName[] = [
  "kv-baseline",
  "link-hit",
  "link-miss",
  "link",
  "asset-patch",
  "document-create",
];

export interface OperationContext {
  /** Unique per runtime, e.g. "node". */
  owner: string;
  /** Unique per runtime and phase, e.g. "node-r2". */
  tag: string;
  count: number;
  concurrency: number;
  token(claims: TokenClaims): Promise<string>;
  /** A statement straight to the database (not through the endpoint, so never counted). */
  seed(query: string, params: string[]): Promise<void>;
  /** A setup request to the runtime under test (unmeasured). */
  call(planned: PlannedRequest): Promise<Response>;
  /** The runtime's assets: path → current ETag, kept from phase to phase. */
  etags: Map<string, string>;
}

interface Operation {
  label: string;
  expect: Expectation;
  /** Database round trips per request by design: 0 for a KV hit, 1 for each write. */
  roundTrips: number;
  /** "baseline": sent to the runtime's bare KV get (dev/kv-baseline/), not to the app. */
  target?: "baseline";
  /** Once per runtime, before its first phase. */
  setup?(context: OperationContext): Promise<void>;
  /** Before each phase (unmeasured): seeds or primes what the phase needs; returns its requests. */
  plan(context: OperationContext): Promise<PlannedRequest[]>;
}

const HIT_LINKS = 16;
const SERVICE: TokenClaims = { sub: "bench-service", tid: "bench", role: "service", expiresIn: "2h" };

const seedLinks = (context: OperationContext, prefix: string, count: number) =>
  context.seed(
    "INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id) " +
      "SELECT 'bench', 'github', $1 || g, $1 || 'user-' || g FROM generate_series(0, $2::int - 1) g",
    [prefix, String(count)],
  );

const lookup = (authorization: string, prefix: string, i: number): PlannedRequest => ({
  method: "GET",
  path: `/v1/links/github/${prefix}${i}`,
  headers: { authorization },
});

const times = <T>(count: number, make: (i: number) => T) => Array.from({ length: count }, (_, i) => make(i));

export const operations: Record<OperationName, Operation> = {
  "kv-baseline": {
    label: "bare KV get (baseline)",
    expect: { status: 200 },
    roundTrips: 0,
    target: "baseline",
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
    setup: (context) => seedLinks(context, `${context.owner}-hit-`, HIT_LINKS),
    async plan(context) {
      const authorization = `Bearer ${await context.token(SERVICE)}`;
      // Each phase starts with the same warm cache: every hit link looked up once.
      for (let i = 0; i < HIT_LINKS; i++)
        await (await context.call(lookup(authorization, `${context.owner}-hit-`, i))).arrayBuffer();
      return times(context.count, (i) => lookup(authorization, `${context.owner}-hit-`, i % HIT_LINKS));
    },
  },
  "link-miss": {
    label: "link lookup (KV miss)",
    expect: { status: 200, linkSource: "db" },
    roundTrips: 1,
    async plan(context) {
      await seedLinks(context, `${context.tag}-miss-`, context.count);
      const authorization = `Bearer ${await context.token(SERVICE)}`;
      return times(context.count, (i) => lookup(authorization, `${context.tag}-miss-`, i));
    },
  },
  link: {
    label: "link (PUT, new)",
    expect: { status: 201 },
    roundTrips: 1,
    async plan(context) {
      // A user links one account per provider: every request is a new user and a new account.
      const tokens = await Promise.all(
        times(context.count, (i) => context.token({ sub: `${context.tag}-user-${i}`, tid: "bench", expiresIn: "2h" })),
      );
      return tokens.map((token, i) => ({
        method: "PUT",
        path: `/v1/links/github/${context.tag}-put-${i}`,
        headers: { authorization: `Bearer ${token}` },
      }));
    },
  },
  "asset-patch": {
    label: "asset PATCH (If-Match)",
    expect: { status: 200 },
    roundTrips: 1,
    async setup(context) {
      const authorization = `Bearer ${await context.token({ sub: "bench", tid: `${context.owner}-assets`, expiresIn: "2h" })}`;
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
      const authorization = `Bearer ${await context.token({ sub: "bench", tid: `${context.owner}-assets`, expiresIn: "2h" })}`;
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
      const authorization = `Bearer ${await context.token({ sub: "bench", tid: `${context.owner}-docs`, expiresIn: "2h" })}`;
      return times(context.count, (i) => ({
        method: "POST",
        path: "/v1/documents",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ contractId: `${context.tag}-${i}` }),
      }));
    },
  },
};
