// The readiness check's statement on the local stack's two databases, through the app's own SQL
// port (the Neon driver, as the app's role): a stack `npm start` migrates is ready, and a database
// whose schema_migrations is gone, never migrated as far as the check can tell, is behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEWEST_MIGRATION } from "../../core/health/newest-migration.ts";
import { recentReadiness } from "../../core/health/readiness.ts";
import { silentLogger } from "../../core/log.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";
import { dispose, type Opened, open } from "../local-stack/stack-driver.ts";

function readinessSuite(backend: "pglite" | "postgres") {
  return () => {
    let opened: Opened;
    beforeAll(async () => {
      opened = await open(backend);
    });
    afterAll(() => dispose(opened));

    /** A fresh check (no answer cached), as a new instance makes it. */
    const check = () => {
      const { databaseUrl, neonFetchEndpoint } = opened.stack;
      return recentReadiness(silentLogger)(createNeonSql({ databaseUrl, fetchEndpoint: neonFetchEndpoint }));
    };

    it("is ready on the schema the local stack migrated, recorded as the release migrator records it", async () => {
      expect(await check()).toEqual({ ready: true });
    });

    it("is behind, needing the newest migration, once schema_migrations is gone", async () => {
      await opened.stack.ownerExec("DROP TABLE schema_migrations");
      expect(await check()).toEqual({ ready: false, schemaBehind: { needs: NEWEST_MIGRATION, newest: null } });
    });
  };
}

describe("readiness over PGlite", readinessSuite("pglite"));
describeWithPostgres("readiness over PostgreSQL", readinessSuite("postgres"));
