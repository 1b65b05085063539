import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { linkPath } from "../../test/links/support.ts";
import { describeOnBackends, type Harness, startHarness } from "../../test/support/harness.ts";
import { FEED_START, type FeedChange, type FeedCursor, type LinkChange, pruneChanges, readChanges } from "./changes.ts";

type Sql = Parameters<typeof readChanges>[0];

/** Reads the feed to its horizon from `cursor`; answers the changes and where it stopped. */
async function readAll(sql: Sql, cursor: FeedCursor, limit = 100) {
  const changes: LinkChange[] = [];
  for (;;) {
    const page = await readChanges(sql, cursor, limit);
    changes.push(...page.changes);
    cursor = page.next;
    if (!page.more) return { changes, cursor };
  }
}

// The horizon is the whole server's oldest transaction in flight: on a PostgreSQL shared with
// other work, a committed change may take a moment to come below it. Reads until `count` came.
async function readCount(sql: Sql, cursor: FeedCursor, count: number, tenantId?: string) {
  const changes: LinkChange[] = [];
  const deadline = Date.now() + 20_000;
  while (changes.length < count && Date.now() < deadline) {
    const read = await readAll(sql, cursor);
    changes.push(...read.changes.filter((change) => tenantId === undefined || change.tenantId === tenantId));
    cursor = read.cursor;
    if (changes.length < count) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { changes, cursor };
}

/** Every change recorded for a tenant, straight from the table. */
const recorded = async (sql: Sql, tenantId: string) =>
  (await sql.query("SELECT external_account_id FROM link_changes WHERE tenant_id = $1 ORDER BY id", [tenantId])).length;

describeOnBackends("the link change feed", (harness) => {
  const put = (path: string, as: TokenClaims, body?: unknown) => harness().request(path, { method: "PUT", as, body });

  it("records a change in the write's own statement, and none for a write that changed nothing", async () => {
    const { sql, stack } = harness();
    const alice = { sub: "feed-alice", tid: "feed" };
    const path = linkPath("GitHub", "feed-1");
    /** The status of `write`, its round trips, and the changes it recorded. */
    const step = async (write: () => Promise<Response>) => {
      const before = await recorded(sql, "feed");
      stack.endpoint.resetStatements();
      const { status } = await write();
      const statements = stack.endpoint.statements();
      const added = (await recorded(sql, "feed")) - before;
      return { status, statements, changes: added === 0 ? [] : added === 1 ? change : `${added} changes` };
    };
    const change = [{ tenantId: "feed", provider: "github", externalAccountId: "feed-1" }];

    expect(await step(() => put(path, alice, { displayName: "one" }))).toEqual({
      status: 201,
      statements: 1,
      changes: change,
    });
    expect(await step(() => put(path, alice))).toEqual({ status: 200, statements: 1, changes: [] });
    expect(await step(() => put(path, alice, { displayName: "one" }))).toEqual({
      status: 200,
      statements: 1,
      changes: [],
    });
    expect(await step(() => put(path, alice, { displayName: "two" }))).toEqual({
      status: 200,
      statements: 1,
      changes: change,
    });
    expect(await step(() => put(path, alice, { displayName: null }))).toEqual({
      status: 200,
      statements: 1,
      changes: change,
    });
    // Refused writes: another user's account (no row), a second account of a provider (23505, rolled back).
    expect(await step(() => put(path, { sub: "feed-bob", tid: "feed" }))).toMatchObject({ status: 409, changes: [] });
    expect(await step(() => put(linkPath("github", "feed-2"), alice))).toMatchObject({ status: 409, changes: [] });
    const unlink = () => harness().request(path, { method: "DELETE", as: alice });
    expect(await step(unlink)).toEqual({ status: 204, statements: 1, changes: change });
    expect(await step(unlink)).toEqual({ status: 404, statements: 1, changes: [] });
    // What the reader then finds: the four changes in order, each named by tenant and target.
    expect((await readCount(sql, FEED_START, 4, "feed")).changes).toEqual(Array(4).fill(change[0]));
  });

  it("a conditional PUT is one statement: If-Match records a new name only, a refused one nothing", async () => {
    const { sql, stack } = harness();
    const carol = { sub: "feed-carol", tid: "conditional" };
    const path = linkPath("gitlab", "conditional-1");
    const conditional = async (headers: Record<string, string>, displayName: string, as = carol) => {
      const before = await recorded(sql, "conditional");
      stack.endpoint.resetStatements();
      const { status } = await harness().request(path, { method: "PUT", as, body: { displayName }, headers });
      return {
        status,
        statements: stack.endpoint.statements(),
        changes: (await recorded(sql, "conditional")) - before,
      };
    };
    expect(await conditional({ "if-match": "*" }, "none yet")).toEqual({ status: 404, statements: 1, changes: 0 });
    expect(await conditional({ "if-none-match": "*" }, "one")).toEqual({ status: 201, statements: 1, changes: 1 });
    expect(await conditional({ "if-none-match": "*" }, "two")).toEqual({ status: 412, statements: 1, changes: 0 });
    expect(await conditional({ "if-match": '"x"' }, "two")).toEqual({ status: 412, statements: 1, changes: 0 });
    expect(await conditional({ "if-match": "*" }, "one")).toEqual({ status: 200, statements: 1, changes: 0 });
    expect(await conditional({ "if-match": "*" }, "two")).toEqual({ status: 200, statements: 1, changes: 1 });
    const dave = { sub: "feed-dave", tid: "conditional" };
    expect(await conditional({ "if-match": "*" }, "theirs", dave)).toEqual({ status: 409, statements: 1, changes: 0 });
    const [row] = await sql.query(
      "SELECT user_id, display_name FROM linked_external_accounts WHERE tenant_id = 'conditional'",
      [],
    );
    expect(row).toEqual({ user_id: "feed-carol", display_name: "two" });
  });

  it("reads in bounded pages and never repeats a change once past it", async () => {
    const { sql } = harness();
    let { cursor } = await readAll(sql, FEED_START);
    for (let i = 0; i < 7; i++)
      expect((await put(linkPath("gitlab", `page-${i}`), { sub: `page-${i}`, tid: "pages" })).status).toBe(201);
    const pages: number[] = [];
    const seen: string[] = [];
    const deadline = Date.now() + 20_000;
    while (seen.length < 7 && Date.now() < deadline) {
      const page = await readChanges(sql, cursor, 3);
      pages.push(page.changes.length);
      seen.push(...page.changes.map((change) => change.externalAccountId));
      cursor = page.next;
    }
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `page-${i}`));
    expect(pages.every((size) => size <= 3)).toBe(true);
    expect((await readChanges(sql, cursor, 3)).changes).toEqual([]);
  });

  it("marks the changes younger than the reader asks about recent, by the database's clock", async () => {
    const { sql } = harness();
    const { cursor } = await readAll(sql, FEED_START);
    const owner = { sub: "recent-owner", tid: "recent" };
    for (const id of ["old", "new"]) expect((await put(linkPath(id, `recent-${id}`), owner)).status).toBe(201);
    await sql.query(
      "UPDATE link_changes SET changed_at = now() - interval '2 minutes' WHERE tenant_id = 'recent' AND external_account_id = 'recent-old'",
    );
    const changes = async (recentSeconds?: number) => {
      const read: FeedChange[] = [];
      for (let from = cursor, more = true; more; ) {
        const page = await readChanges(sql, from, 100, recentSeconds);
        read.push(...page.changes.filter((change) => change.tenantId === "recent"));
        [from, more] = [page.next, page.more];
      }
      return read.map(({ externalAccountId, recent }) => ({ externalAccountId, recent }));
    };
    expect(await changes(60)).toEqual([
      { externalAccountId: "recent-old", recent: undefined },
      { externalAccountId: "recent-new", recent: true },
    ]);
    expect(await changes(600)).toEqual([
      { externalAccountId: "recent-old", recent: true },
      { externalAccountId: "recent-new", recent: true },
    ]);
    expect((await changes()).every((change) => change.recent === undefined)).toBe(true);
  });

  it("prunes changes older than the retention, and only those, oldest first, a bounded batch at a time", async () => {
    const { sql } = harness();
    // Earlier tests' changes are recent: only these three are past the retention.
    expect((await put(linkPath("prune", "recent"), { sub: "pruner", tid: "prune" })).status).toBe(201);
    await sql.query(
      `INSERT INTO link_changes (tenant_id, provider, external_account_id, changed_at)
       SELECT 'prune', 'prune', 'old-' || n, now() - interval '2 hours' - n * interval '1 minute'
       FROM generate_series(1, 3) AS n`,
    );
    expect(await pruneChanges(sql, 3600, 2)).toBe(2);
    const left = () => sql.query("SELECT external_account_id FROM link_changes WHERE tenant_id = 'prune' ORDER BY id");
    expect(await left()).toEqual([{ external_account_id: "recent" }, { external_account_id: "old-1" }]); // the newest old one
    expect(await pruneChanges(sql, 3600, 2)).toBe(1);
    expect(await left()).toEqual([{ external_account_id: "recent" }]);
  });
});

// Two sessions with their own transactions: the real PostgreSQL (PGlite is one session).
describeWithPostgres("the link change feed under transactions that commit out of order", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres" });
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });

  it("never skips a change that commits after a later one was read", async () => {
    const { sql, stack } = harness;
    const sessions = [new pg.Client(stack.postgresUrl), new pg.Client(stack.postgresUrl)];
    await Promise.all(sessions.map((session) => session.connect()));
    const [early, late] = sessions as [pg.Client, pg.Client];
    const record = (session: pg.Client, id: string) =>
      session.query(
        "INSERT INTO link_changes (tenant_id, provider, external_account_id) VALUES ('ooo', 'github', $1)",
        [id],
      );
    try {
      let { cursor } = await readAll(sql, FEED_START);
      // `early` takes the lower id and transaction id, but commits last.
      await early.query("BEGIN");
      await record(early, "early");
      await late.query("BEGIN");
      await record(late, "late");
      await late.query("COMMIT");

      // A reader keeping the highest id read would take "late" and then never see "early".
      const naive = await sql.query("SELECT external_account_id FROM link_changes WHERE tenant_id = 'ooo' ORDER BY id");
      expect(naive).toEqual([{ external_account_id: "late" }]);

      const whileOpen = await readAll(sql, cursor);
      expect(whileOpen.changes).toEqual([]); // "late" waits behind the open transaction
      cursor = whileOpen.cursor;

      await early.query("COMMIT");
      const after = await readCount(sql, cursor, 2);
      expect(after.changes.map((change) => change.externalAccountId)).toEqual(["early", "late"]);
      expect((await readAll(sql, after.cursor)).changes).toEqual([]);
    } finally {
      await Promise.all(sessions.map((session) => session.end()));
    }
  });
});
