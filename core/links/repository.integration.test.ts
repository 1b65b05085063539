import { describe, expect, it } from "vitest";
import { linkPath, linkRows } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import type { Logger } from "../log.ts";
import { DatabaseError, type Sql } from "../ports/sql.ts";
import type { LinkTarget } from "./link.ts";
import { DEFAULT_MAX_LINKS_PER_USER } from "./link-settings.ts";
import { findLinks, linkAccount, type NewLink, pageLinks } from "./repository.ts";

const newLink: NewLink = {
  tenantId: "acme",
  provider: "github",
  externalAccountId: "1",
  userId: "alice",
  displayName: null,
  replaceDisplayName: false,
  maxLinksPerUser: DEFAULT_MAX_LINKS_PER_USER,
};

/** A database that refuses every statement with `error`. */
const refusing = (error: Error): Sql => ({
  query: async () => {
    throw error;
  },
  transaction: async () => {
    throw error;
  },
});

const uniqueViolation = (constraint: string) => new DatabaseError("duplicate key", { code: "23505", constraint });

describe("linkAccount's reading of unique violations", () => {
  it("maps the two link indexes, by name, to their conflict codes", async () => {
    expect(await linkAccount(refusing(uniqueViolation("linked_external_accounts_user_provider_key")), newLink)).toEqual(
      {
        outcome: "conflict",
        code: "provider_already_linked",
      },
    );
    expect(
      await linkAccount(refusing(uniqueViolation("linked_external_accounts_external_account_key")), newLink),
    ).toEqual({ outcome: "conflict", code: "external_account_already_linked" });
  });

  it("lets any other violation through untouched", async () => {
    for (const error of [
      uniqueViolation("linked_external_accounts_pkey"),
      new DatabaseError("duplicate key", { code: "23505" }),
      new DatabaseError("check", { code: "23514", constraint: "linked_external_accounts_provider_normalized" }),
      new Error("network"),
    ]) {
      await expect(linkAccount(refusing(error), newLink)).rejects.toBe(error);
    }
  });
});

describeOnBackends("link repository", (harness) => {
  it("finds links by target in one statement, whatever characters the ids hold", async () => {
    const ids = ['a"b', "c\\d", "e,f", "{g}", "NULL", "h i", "é😀", "'; DROP TABLE x; --"];
    for (const [index, externalAccountId] of ids.entries()) {
      await linkAccount(harness().sql, { ...newLink, externalAccountId, userId: `find-${index}` });
    }
    const wanted = [...ids, "absent"].map((externalAccountId) => ({ provider: "github", externalAccountId }));
    const found = await findLinks(harness().sql, "acme", wanted);
    expect(found.map((link) => link.externalAccountId).sort()).toEqual([...ids].sort());
    expect(await findLinks(harness().sql, "acme", [])).toEqual([]);
  });

  it("pages through every link in bounded pages", async () => {
    for (let index = 0; index < 7; index++) {
      await linkAccount(harness().sql, { ...newLink, externalAccountId: `page-${index}`, userId: `page-${index}` });
    }
    const seen: string[] = [];
    let after: LinkTarget | undefined;
    let pages = 0;
    do {
      const page = await pageLinks(harness().sql, "acme", after, 3);
      expect(page.links.length).toBeLessThanOrEqual(3);
      seen.push(...page.links.map((link) => link.externalAccountId));
      after = page.next;
      pages++;
    } while (after !== undefined);
    const total = await harness().sql.query("SELECT count(*)::int AS n FROM linked_external_accounts");
    expect(seen).toHaveLength(Number(total[0]!.n));
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBeGreaterThan(2);
  });
});

// These tests change the schema, so they get a database of their own.
const logged: { level: string; event: string }[] = [];
const logger: Logger = { log: (level, event) => logged.push({ level, event }) };

describeOnBackends(
  "the links schema, altered",
  (harness) => {
    const insert = (provider: string, externalAccountId: string, userId: string) =>
      harness().sql.query(
        "INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id) VALUES ('acme', $1, $2, $3)",
        [provider, externalAccountId, userId],
      );

    it("answers a unique violation on any other index with a logged 500, never a link conflict", async () => {
      // Schema changes need the owner: requests run as the app role, as on Neon.
      await harness().stack.ownerExec(
        "CREATE UNIQUE INDEX test_only_display_name_key ON linked_external_accounts (display_name)",
      );
      const body = { displayName: "Same Name" };
      const first = await harness().request(linkPath("github", "one"), { method: "PUT", as: { sub: "u1" }, body });
      expect(first.status).toBe(201);
      logged.length = 0;
      const second = await harness().request(linkPath("gitlab", "two"), { method: "PUT", as: { sub: "u2" }, body });
      await expectProblem(second, 500, "internal_error");
      expect(logged).toContainEqual({ level: "error", event: "unhandled_error" });
      expect(await linkRows(harness().sql)).toHaveLength(1);
    });

    it("refuses un-normalized values from a code path that forgets to normalize", async () => {
      await expect(insert("GitHub", "1", "a")).rejects.toMatchObject({
        code: "23514",
        constraint: "linked_external_accounts_provider_normalized",
      });
      await expect(insert("github", " 1", "a")).rejects.toMatchObject({
        code: "23514",
        constraint: "linked_external_accounts_external_id_normalized",
      });
    });

    it("still allows one link per account and per user and provider in any case, checks or not", async () => {
      await harness().stack.ownerExec(
        "ALTER TABLE linked_external_accounts DROP CONSTRAINT linked_external_accounts_provider_normalized",
      );
      await insert("github", "1", "a");
      await expect(insert("GitHub", "1", "b")).rejects.toMatchObject({
        code: "23505",
        constraint: "linked_external_accounts_external_account_key",
      });
      await expect(insert("GITHUB", "2", "a")).rejects.toMatchObject({
        code: "23505",
        constraint: "linked_external_accounts_user_provider_key",
      });
    });
  },
  { logger },
);
