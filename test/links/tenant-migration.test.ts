// sql/0006_link_tenants.sql on a database that already holds links: nothing is lost, the old
// links belong to the tenant 'legacy', which no token may name, and the per-tenant indexes judge
// from then on.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProblemError } from "../../core/http/problem.ts";
import { createAuthenticator, RESERVED_TENANT } from "../../core/tokens/auth.ts";
import { parseAuthSettings } from "../../core/tokens/settings.ts";
import type { SqlBackend } from "../../dev/local-stack/neon-endpoint/backend.ts";
import { createPgliteBackend } from "../../dev/local-stack/neon-endpoint/pglite-backend.ts";
import { signToken, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { DEFAULT_MIGRATIONS_DIR, migrate, migrationFiles } from "../../edge/migrate/migrate.ts";

const BEFORE_TENANTS = "0006_link_tenants.sql";

const rows = async (backend: SqlBackend, query: string) => (await backend.query({ query, params: [] })).rows;

describe("links stored before tenants existed", () => {
  let backend: SqlBackend;
  let dir: string;
  beforeAll(async () => {
    backend = await createPgliteBackend();
    dir = await mkdtemp(join(tmpdir(), "migrations-"));
    const files = await migrationFiles(DEFAULT_MIGRATIONS_DIR);
    for (const name of files.filter((file) => file < BEFORE_TENANTS)) {
      await copyFile(join(DEFAULT_MIGRATIONS_DIR, name), join(dir, name));
    }
    await migrate(backend, dir);
    await backend.exec(`INSERT INTO linked_external_accounts (provider, external_account_id, user_id, display_name)
      VALUES ('github', 'old-1', 'alice', 'Alice'), ('gitlab', 'old-2', 'bob', NULL)`);
    for (const name of files) await copyFile(join(DEFAULT_MIGRATIONS_DIR, name), join(dir, name));
    expect(await migrate(backend, dir)).toContain(BEFORE_TENANTS);
  }, 120_000);
  afterAll(async () => {
    await backend?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps every row, owner and name, in the tenant 'legacy'", async () => {
    expect(
      await rows(
        backend,
        "SELECT tenant_id, provider, external_account_id, user_id, display_name FROM linked_external_accounts ORDER BY id",
      ),
    ).toEqual([
      ["legacy", "github", "old-1", "alice", "Alice"],
      ["legacy", "gitlab", "old-2", "bob", null],
    ]);
  });

  it("holds them in a tenant no token can name, whatever its role: they are the operator's to move", async () => {
    const tenants = await rows(
      backend,
      "SELECT DISTINCT tenant_id FROM linked_external_accounts WHERE user_id = 'alice'",
    );
    expect(tenants).toEqual([[RESERVED_TENANT]]);
    const authenticate = createAuthenticator(parseAuthSettings({ AUTH_SECRET: TEST_AUTH_SECRET }));
    for (const role of ["user", "service", "admin"] as const) {
      const refused = await authenticate(`Bearer ${await signToken({ tid: RESERVED_TENANT, role })}`).catch(
        (error: unknown) => error,
      );
      expect(refused, role).toBeInstanceOf(ProblemError);
      expect((refused as ProblemError).status).toBe(401);
    }
    // Moved to a customer's tenant with one statement, they are that tenant's.
    expect(await authenticate(`Bearer ${await signToken({ tid: "acme-legacy" })}`)).toMatchObject({
      tenantId: "acme-legacy",
    });
  });

  it("lets another tenant link the same account, and still refuses a second owner within 'legacy'", async () => {
    await backend.exec(`INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
      VALUES ('acme', 'github', 'old-1', 'carol')`);
    const duplicate = await backend
      .exec(`INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
        VALUES ('legacy', 'github', 'old-1', 'dave')`)
      .catch((error: unknown) => error);
    expect(duplicate).toMatchObject({
      fields: { code: "23505", constraint: "linked_external_accounts_external_account_key" },
    });
  });

  it("asks every new row for its tenant", async () => {
    const missing = await backend
      .exec(
        "INSERT INTO linked_external_accounts (provider, external_account_id, user_id) VALUES ('github', 'new', 'erin')",
      )
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ fields: { code: "23502" } });
  });
});
