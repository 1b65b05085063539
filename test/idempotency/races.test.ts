// Idempotency-Keys are the caller's (tenant and subject): several callers of one tenant use the
// same key names, in any order of creates, retries (concurrent ones included), expiries and the
// housekeeping's cleanup (running alongside the creates). However they interleave, a caller's key
// names one resource for its whole lifetime: every use of it until it expires answers that one,
// and the database holds exactly one resource per lifetime of a key that was used. Expiring one
// caller's key ends no one else's. On the real PostgreSQL (concurrent sessions), through the app,
// for documents and assets alike. Failures print fast-check's seed and path to replay them.
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ASSET_KEYS_EXPIRY } from "../../core/assets/create-once.ts";
import { DOCUMENT_KEYS_EXPIRY } from "../../core/documents/repository.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { expireInBatches } from "../support/expiry.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const RUNS = Number(process.env.PROPERTY_RUNS ?? 30);
const CALLERS = ["alice", "bob", "carol"] as const;
const KEYS = ["order-7", "order-8"] as const;

type Use = { caller: (typeof CALLERS)[number]; key: (typeof KEYS)[number] };
type Step =
  /** Uses of keys sent at once, optionally while the cleanup runs. */
  | { kind: "send"; uses: Use[]; withCleanup: boolean }
  /** The caller's key reaches its expiry: its lifetime ends. */
  | { kind: "expire"; use: Use }
  | { kind: "cleanup" };

const use = fc.record({ caller: fc.constantFrom(...CALLERS), key: fc.constantFrom(...KEYS) });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("send"),
      uses: fc.array(use, { minLength: 1, maxLength: 4 }),
      withCleanup: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("expire"), use }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cleanup") }) },
);

/** What differs between the two capabilities that take an Idempotency-Key. */
interface KeyedCreate {
  path: string;
  /** One body per caller and key, so every use within a lifetime is a retry of the first. */
  body(use: Use): Record<string, string>;
  /** Moves the caller's key past its expiry. */
  expire: string;
  /** How many resources the caller's requests with this key created. */
  count: string;
  cleanup: string;
}

const label = ({ caller, key }: Use) => `${caller} ${key}`;

const ASSETS: KeyedCreate = {
  path: "/v1/assets",
  body: (use) => ({ name: label(use), material: "oak" }),
  expire: `UPDATE asset_idempotency_keys SET expires_at = now() - interval '1 second'
            WHERE tenant_id = $1 AND subject_id = $2 AND idempotency_key = $3`,
  count: "SELECT count(*)::int AS n FROM assets WHERE tenant_id = $1 AND name = $2",
  cleanup: ASSET_KEYS_EXPIRY,
};

const DOCUMENTS: KeyedCreate = {
  path: "/v1/documents",
  body: (use) => ({ contractId: label(use) }),
  expire: `UPDATE documents SET idempotency_expires_at = now() - interval '1 second'
            WHERE tenant_id = $1 AND idempotency_subject = $2 AND idempotency_key = $3`,
  count: "SELECT count(*)::int AS n FROM documents WHERE tenant_id = $1 AND contract_id = $2",
  cleanup: DOCUMENT_KEYS_EXPIRY,
};

describeWithPostgres("Idempotency-Keys of several callers, interleaved [postgres]", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres", poolSize: 10 });
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
  });

  /** Runs `steps` on a fresh tenant and checks each answer, then the resources stored. */
  async function check(capability: KeyedCreate, steps: Step[]): Promise<void> {
    const tid = `t-${crypto.randomUUID().slice(0, 8)}`;
    const living = new Map<string, string>(); // the resource each caller's key names now
    const lifetimes = new Map<string, number>(); // lifetimes in which the key was used

    const send = async (sent: Use[]) => {
      const responses = await Promise.all(
        sent.map((u) =>
          harness.request(capability.path, {
            method: "POST",
            as: { tid, sub: u.caller },
            body: capability.body(u),
            headers: { "idempotency-key": u.key },
          }),
        ),
      );
      const answers = await Promise.all(
        responses.map(async (r) => ({
          status: r.status,
          id: ((await r.json()) as { id: string }).id,
          replayed: r.headers.get("idempotent-replayed") === "true",
        })),
      );
      for (const pair of new Set(sent.map(label))) {
        const own = answers.filter((_, i) => label(sent[i]!) === pair);
        expect(own.map((a) => a.status)).toEqual(own.map(() => 201));
        const named = living.get(pair);
        const ids = new Set(own.map((a) => a.id));
        expect(ids.size, `${pair}: one resource per lifetime`).toBe(1);
        if (named !== undefined) expect(own[0]!.id, `${pair}: replays within its lifetime`).toBe(named);
        expect(
          own.filter((a) => !a.replayed),
          `${pair}: created at most once`,
        ).toHaveLength(named ? 0 : 1);
        if (named === undefined) lifetimes.set(pair, (lifetimes.get(pair) ?? 0) + 1);
        living.set(pair, own[0]!.id);
      }
    };
    const cleanup = () => expireInBatches(harness.sql, capability.cleanup, 100);

    for (const s of steps) {
      if (s.kind === "send") await Promise.all([send(s.uses), s.withCleanup ? cleanup() : undefined]);
      else if (s.kind === "cleanup") await cleanup();
      else {
        await harness.sql.query(capability.expire, [tid, s.use.caller, s.use.key]);
        living.delete(label(s.use));
      }
    }
    for (const caller of CALLERS) {
      for (const key of KEYS) {
        const pair = label({ caller, key });
        const [row] = await harness.sql.query(capability.count, [tid, pair]);
        expect(row?.n, `${pair}: resources stored`).toBe(lifetimes.get(pair) ?? 0);
      }
    }
  }

  for (const [name, capability] of [
    ["documents", DOCUMENTS],
    ["assets", ASSETS],
  ] as const) {
    it(`${name}: a caller's key names one resource for its lifetime, whatever the others do with theirs`, {
      timeout: 300_000,
    }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => check(capability, steps)),
        { numRuns: RUNS },
      );
    });
  }
});
