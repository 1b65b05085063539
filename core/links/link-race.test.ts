// The one race ON CONFLICT cannot arbitrate: the same user linking the same account twice at once
// can fail in the user-provider index on the twin's row. Replayed here without a database.
import { describe, expect, it } from "vitest";
import { DatabaseError, type Row, type Sql } from "../ports/sql.ts";
import { DEFAULT_MAX_LINKS_PER_USER } from "./link-settings.ts";
import { linkAccount } from "./repository.ts";

const providerTaken = () =>
  new DatabaseError("duplicate key", { code: "23505", constraint: "linked_external_accounts_user_provider_key" });

/** A Sql whose query calls answer, in order, with these rows or errors. */
function scriptedSql(answers: Array<Row[] | Error>): Sql & { calls: number } {
  const sql = {
    calls: 0,
    async query<T extends Row>() {
      const answer = answers[sql.calls++];
      if (answer === undefined) throw new Error("unexpected statement");
      if (answer instanceof Error) throw answer;
      return answer as T[];
    },
    transaction: () => Promise.reject(new Error("not used")),
  };
  return sql;
}

const link = {
  tenantId: "acme",
  provider: "github",
  externalAccountId: "1234",
  userId: "alice",
  displayName: null,
  replaceDisplayName: false,
  maxLinksPerUser: DEFAULT_MAX_LINKS_PER_USER,
};
const row = {
  provider: "github",
  external_account_id: "1234",
  user_id: "alice",
  display_name: null,
  linked_at: new Date(0),
  created: false,
};

describe("linkAccount against its twin", () => {
  it("answers the existing link when the user-provider index refused the twin's row", async () => {
    const sql = scriptedSql([providerTaken(), [row]]);
    expect(await linkAccount(sql, link)).toMatchObject({ outcome: "existing", link: { userId: "alice" } });
    expect(sql.calls).toBe(2);
  });

  it("is provider_already_linked when the user really holds another account of the provider", async () => {
    const sql = scriptedSql([providerTaken(), providerTaken()]);
    expect(await linkAccount(sql, link)).toEqual({ outcome: "conflict", code: "provider_already_linked" });
    expect(sql.calls).toBe(2);
  });

  it("takes one statement when nothing races", async () => {
    const sql = scriptedSql([[{ ...row, created: true }]]);
    expect(await linkAccount(sql, link)).toMatchObject({ outcome: "created" });
    expect(sql.calls).toBe(1);
  });
});
