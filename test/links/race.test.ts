// The races of the Links issue, on real PostgreSQL (PGlite is one session and cannot race):
// many requests at once through the whole production path, and the table judged afterwards.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Link } from "../../core/links/link.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { linkPath, linkRows } from "./support.ts";

const CONCURRENCY = 120;
const CAP_RACERS = 60;

interface Outcome {
  status: number;
  code?: string;
  userId?: string;
}

async function outcome(response: Response): Promise<Outcome> {
  const body = response.status === 204 ? {} : ((await response.json()) as { code?: string; userId?: string });
  return { status: response.status, code: body.code, userId: body.userId };
}

const tally = (outcomes: Outcome[]) =>
  outcomes.reduce<Record<string, number>>((counts, { status, code }) => {
    const label = code ? `${status} ${code}` : String(status);
    counts[label] = (counts[label] ?? 0) + 1;
    return counts;
  }, {});

describeWithPostgres("link races on PostgreSQL", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres", poolSize: 20 });
  });
  afterAll(async () => {
    await harness?.close();
  });

  const putAll = (requests: { path: string; as: TokenClaims }[]) =>
    Promise.all(requests.map(({ path, as }) => harness.request(path, { method: "PUT", as }).then(outcome)));

  const users = (label: string) => Array.from({ length: CONCURRENCY }, (_, i) => ({ sub: `${label}-${i}` }));

  it(`${CONCURRENCY} users linking one account at once: one 201, every other 409, one row`, async () => {
    const outcomes = await putAll(users("same").map((as) => ({ path: linkPath("github", "contested-1"), as })));
    expect(tally(outcomes)).toEqual({ "201": 1, "409 external_account_already_linked": CONCURRENCY - 1 });
    const winner = outcomes.find((o) => o.status === 201)!.userId;
    expect(await linkRows(harness.sql, { provider: "github", externalAccountId: "contested-1" })).toEqual([
      { provider: "github", external_account_id: "contested-1", user_id: winner, display_name: null },
    ]);
  });

  it("racers of several tenants linking one account at once: one winner per tenant, one row each", async () => {
    const tenants = ["north", "south", "east", "west"];
    // The same subs in every tenant: a sub names a user only within its tenant.
    const requests = users("tenanted").map((as, i) => ({
      path: linkPath("github", "contested-3"),
      as: { ...as, tid: tenants[i % tenants.length]! },
    }));
    const outcomes = await putAll(requests);
    expect(tally(outcomes)).toEqual({
      "201": tenants.length,
      "409 external_account_already_linked": CONCURRENCY - tenants.length,
    });
    const winners = requests.filter((_, i) => outcomes[i]!.status === 201).map(({ as }) => as.tid);
    expect(winners.sort()).toEqual([...tenants].sort());
    const rows = await harness.sql.query(
      "SELECT tenant_id, user_id FROM linked_external_accounts WHERE external_account_id = 'contested-3' ORDER BY tenant_id",
    );
    expect(rows.map((row) => row.tenant_id)).toEqual([...tenants].sort());
    for (const row of rows) {
      const won = requests.find((r, i) => outcomes[i]!.status === 201 && r.as.tid === row.tenant_id)!;
      expect(row.user_id).toBe(won.as.sub);
    }
  });

  it("the same with every request spelling provider and id differently", async () => {
    const spellings = ["github", "GitHub", "GITHUB", " gitHub", "Github\t"];
    const requests = users("cased").map((as, i) => ({
      path: linkPath(spellings[i % spellings.length]!, `${" ".repeat(i % 3)}contested-2${" ".repeat(i % 2)}`),
      as,
    }));
    const outcomes = await putAll(requests);
    expect(tally(outcomes)).toEqual({ "201": 1, "409 external_account_already_linked": CONCURRENCY - 1 });
    const rows = await harness.sql.query(
      "SELECT provider, external_account_id FROM linked_external_accounts WHERE external_account_id LIKE '%contested-2%'",
    );
    expect(rows).toEqual([{ provider: "github", external_account_id: "contested-2" }]);
  });

  it("one user linking one account many times at once: one 201, the rest 200 with the same link", async () => {
    const as = { sub: "eager" };
    const responses = await Promise.all(
      Array.from({ length: CONCURRENCY }, () => harness.request(linkPath("gitlab", "mine"), { method: "PUT", as })),
    );
    const links = await Promise.all(responses.map((r) => r.json() as Promise<Link>));
    expect(tally(responses.map((r) => ({ status: r.status })))).toEqual({ "201": 1, "200": CONCURRENCY - 1 });
    expect(new Set(links.map((link) => JSON.stringify(link))).size).toBe(1);
    expect(await linkRows(harness.sql, { provider: "gitlab", externalAccountId: "mine" })).toHaveLength(1);
  });

  it("one user linking many accounts of one provider at once: one 201, the rest provider_already_linked", async () => {
    const as = { sub: "greedy" };
    const outcomes = await putAll(
      Array.from({ length: CONCURRENCY }, (_, i) => ({ path: linkPath("Bitbucket", `greedy-${i}`), as })),
    );
    expect(tally(outcomes)).toEqual({ "201": 1, "409 provider_already_linked": CONCURRENCY - 1 });
    const rows = await harness.sql.query("SELECT 1 FROM linked_external_accounts WHERE user_id = 'greedy'");
    expect(rows).toHaveLength(1);
  });

  it("one user linking one account at once with If-None-Match: *: one 201, the rest 412 (create only)", async () => {
    const as = { sub: "creator" };
    const headers = { "if-none-match": "*" };
    const outcomes = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) =>
        harness.request(linkPath("gitlab", "create-only"), {
          method: "PUT",
          as,
          headers,
          body: { displayName: `${i}` },
        }),
      ).map((response) => response.then(outcome)),
    );
    expect(tally(outcomes)).toEqual({ "201": 1, "412 precondition_failed": CONCURRENCY - 1 });
    const [row] = await linkRows(harness.sql, { provider: "gitlab", externalAccountId: "create-only" });
    const created = await harness.request(linkPath("gitlab", "create-only"), { as });
    expect(row?.display_name).toBe(((await created.json()) as Link).displayName);
  });

  it("renames with If-Match: * racing the unlink never bring the link back", async () => {
    const as = { sub: "renamer" };
    const path = linkPath("github", "renamed");
    expect((await harness.request(path, { method: "PUT", as })).status).toBe(201);
    const renames = Array.from({ length: 40 }, (_, i) =>
      harness.request(path, { method: "PUT", as, headers: { "if-match": "*" }, body: { displayName: `${i}` } }),
    );
    const unlink = harness.request(path, { method: "DELETE", as });
    const outcomes = await Promise.all([...renames, unlink].map((response) => response.then(outcome)));
    const counts = tally(outcomes);
    expect(counts["204"]).toBe(1);
    expect((counts["200"] ?? 0) + (counts["404 not_found"] ?? 0)).toBe(40);
    expect(await linkRows(harness.sql, { provider: "github", externalAccountId: "renamed" })).toEqual([]);
  });
});

// LINK_MAX_PER_USER under concurrency: one user's new links arriving at once must not all see room
// for themselves. Each request is still one statement.
const CAP = 3;

describeWithPostgres("links per user capped, on PostgreSQL", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres", poolSize: 20, env: { LINK_MAX_PER_USER: String(CAP) } });
  });
  afterAll(async () => {
    await harness?.close();
  });

  const statusesOf = async (requests: { path: string; as: TokenClaims; method?: string }[]) =>
    tally(
      await Promise.all(
        requests.map(({ path, as, method = "PUT" }) => harness.request(path, { method, as }).then(outcome)),
      ),
    );
  const linksOf = async (tenantId: string, userId: string) =>
    (
      await harness.sql.query(
        "SELECT count(*)::int AS n FROM linked_external_accounts WHERE tenant_id = $1 AND user_id = $2",
        [tenantId, userId],
      )
    )[0]!.n;

  it(`${CAP_RACERS} new links of one user at once, each of its own provider: ${CAP} linked, the rest refused`, async () => {
    const as = { sub: "hoarder" };
    const requests = Array.from({ length: CAP_RACERS }, (_, i) => ({ path: linkPath(`p${i}`, `acct-${i}`), as }));
    expect(await statusesOf(requests)).toEqual({ "201": CAP, "409 link_limit_reached": CAP_RACERS - CAP });
    expect(await linksOf("acme", "hoarder")).toBe(CAP);
  });

  it("a user one below the cap, racing new links and a re-link of their own: one more, the re-link 200", async () => {
    const as = { sub: "almost" };
    for (let i = 0; i < CAP - 1; i++) {
      expect((await harness.request(linkPath(`held${i}`, "x"), { method: "PUT", as })).status).toBe(201);
    }
    const requests = [
      ...Array.from({ length: CAP_RACERS }, (_, i) => ({ path: linkPath(`new${i}`, "y"), as })),
      ...Array.from({ length: 10 }, () => ({ path: linkPath("held0", "x"), as })),
    ];
    expect(await statusesOf(requests)).toEqual({
      "200": 10,
      "201": 1,
      "409 link_limit_reached": CAP_RACERS - 1,
    });
    expect(await linksOf("acme", "almost")).toBe(CAP);
  });

  it("unlinks racing new links never leave a user above the cap", async () => {
    const as = { sub: "churner" };
    for (let i = 0; i < CAP; i++) {
      expect((await harness.request(linkPath(`old${i}`, "x"), { method: "PUT", as })).status).toBe(201);
    }
    const requests = [
      ...Array.from({ length: CAP }, (_, i) => ({ path: linkPath(`old${i}`, "x"), as, method: "DELETE" })),
      ...Array.from({ length: CAP_RACERS }, (_, i) => ({ path: linkPath(`fresh${i}`, "y"), as })),
    ];
    const statuses = await statusesOf(requests);
    expect(statuses["204"]).toBe(CAP);
    expect(statuses["201"]).toBeLessThanOrEqual(CAP);
    expect(await linksOf("acme", "churner")).toBe(statuses["201"] ?? 0);
  });

  it("many users at once, each to the cap: every user holds exactly the cap", async () => {
    const users = Array.from({ length: 10 }, (_, u) => ({ sub: `crowd-${u}`, tid: `crowd${u % 2}` }));
    const requests = users.flatMap((as) =>
      Array.from({ length: CAP + 3 }, (_, i) => ({ path: linkPath(`c${i}`, `${as.sub}-${i}`), as })),
    );
    expect(await statusesOf(requests)).toEqual({
      "201": users.length * CAP,
      "409 link_limit_reached": users.length * 3,
    });
    for (const { sub, tid } of users) expect(await linksOf(tid, sub)).toBe(CAP);
  });
});
