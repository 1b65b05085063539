// Link races forced rather than hoped for, on the real PostgreSQL: a first write is held in an
// open transaction while a second one runs, then the first commits.
import { expect, it } from "vitest";
import type { LinkTarget } from "../../core/links/link.ts";
import { linkAccount, unlinkAccount } from "../../core/links/repository.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { interleave, postgresSessions } from "../support/interleave.ts";

const TENANT = "acme";
const CAP = 2;

describeWithPostgres("link interleavings [postgres]", () => {
  const suite = postgresSessions();

  const link = (sql: Sql, userId: string, target: LinkTarget) =>
    linkAccount(sql, {
      ...target,
      tenantId: TENANT,
      userId,
      displayName: null,
      replaceDisplayName: false,
      maxLinksPerUser: CAP,
    });
  const linksOf = async (userId: string) =>
    (await suite.pool.query("SELECT count(*)::int AS n FROM linked_external_accounts WHERE user_id = $1", [userId]))
      .rows[0].n;

  // Only the caller's own account is a re-link the cap lets through. An account that another user
  // holds, and is unlinking at that moment, would become the caller's one link too many.
  it("a user at the cap linking an account its owner is unlinking: refused, the cap holds", async () => {
    const taken = { provider: "github", externalAccountId: "octo" };
    expect(await link(suite.harness.sql, "owner", taken)).toMatchObject({ outcome: "created" });
    for (let i = 0; i < CAP; i++) {
      const held = { provider: `p${i}`, externalAccountId: "mine" };
      expect(await link(suite.harness.sql, "full", held)).toMatchObject({ outcome: "created" });
    }
    const { firstResult, secondResult } = await interleave(
      suite.pool,
      (sql) => unlinkAccount(sql, TENANT, taken, "owner"),
      (sql) => link(sql, "full", taken),
      { mayFinish: true },
    );
    expect(firstResult).toBe(true);
    expect(secondResult).toEqual({ outcome: "conflict", code: "link_limit_reached" });
    expect(await linksOf("full")).toBe(CAP);
  });
});
