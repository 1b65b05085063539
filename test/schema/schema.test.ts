// sql/schema.sql is the schema the migrations build, not a second source that drifts from them.
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { migratedSchema, SCHEMA_FILE } from "../../dev/build/schema.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";

describeWithPostgres("sql/schema.sql", () => {
  it("is what the migrations build on a new database (npm run schema writes it)", async () => {
    const committed = await readFile(SCHEMA_FILE, "utf8");
    expect(await migratedSchema(), "sql/schema.sql differs from the migrations: run `npm run schema`").toBe(committed);
  });
});
