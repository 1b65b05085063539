// The same race against the naive KV-first handler and against ours: the naive one lets
// several users "own" one account (so the race is real and this load exposes it), ours lets
// exactly one (so the quiet result of our race test means something).
import { afterAll, beforeAll, expect, it } from "vitest";
import { linkKey } from "../../core/links/kv-keys.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { linkPath, linkRows } from "../links/support.ts";
import { buildRequest, type Harness, startHarness } from "../support/harness.ts";
import { createKvFirstLinkApp, withLatency } from "./kv-first-links.ts";

const CONCURRENCY = 100;
// Optimistic for an edge store: Workers KV reads of a cold key and writes take tens of ms,
// and a write reaches other locations only after up to 60 s.
const KV_LATENCY_MS = 5;

const target = { provider: "github", externalAccountId: "contested" };

/** The same requests for both: CONCURRENCY different users claiming one account, all at once. */
async function race(fetch: (request: Request) => Response | Promise<Response>) {
  const requests = await Promise.all(
    Array.from({ length: CONCURRENCY }, (_, i) =>
      buildRequest(linkPath("GitHub", "contested"), { method: "PUT", as: { sub: `user-${i}` } }),
    ),
  );
  const responses = await Promise.all(requests.map((request) => fetch(request)));
  const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ userId?: string }>));
  return responses.map((r, i) => ({ status: r.status, userId: bodies[i]!.userId }));
}

describeWithPostgres("KV-first links (counter-example) against Postgres-decided links", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      backend: "postgres",
      poolSize: 20,
      kv: withLatency(createMemoryKv(), KV_LATENCY_MS),
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it(`under ${CONCURRENCY} concurrent claims the naive check lets several owners through; ours one`, async () => {
    const naiveKv = withLatency(createMemoryKv(), KV_LATENCY_MS);
    const naive = createKvFirstLinkApp(naiveKv, TEST_AUTH_SECRET);
    const naiveWinners = (await race((request) => naive.fetch(request))).filter((o) => o.status === 201);
    // Each of these was told it owns the account; the store remembers only the last of them.
    expect(naiveWinners.length).toBeGreaterThan(1);
    const stored = JSON.parse((await naiveKv.get(await linkKey("acme", target)))!) as { userId: string };
    expect(naiveWinners.map((w) => w.userId)).toContain(stored.userId);

    const ours = await race((request) => harness.app.fetch(request));
    const winners = ours.filter((o) => o.status === 201);
    expect(winners).toHaveLength(1);
    expect(ours.filter((o) => o.status === 409)).toHaveLength(CONCURRENCY - 1);
    expect(await linkRows(harness.sql, target)).toEqual([
      { provider: "github", external_account_id: "contested", user_id: winners[0]!.userId, display_name: null },
    ]);
  });
});
