import { readFile, stat } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { imagePath, newClusterImage } from "./pglite-image.ts";

/** What tells one new cluster from another: its databases, roles, settings and catalog. */
async function describeCluster(db: PGlite) {
  const rows = async (sql: string) => (await db.query(sql)).rows;
  return {
    databases: await rows("SELECT datname, encoding, datcollate FROM pg_database ORDER BY datname"),
    roles: await rows("SELECT rolname, rolsuper FROM pg_roles ORDER BY rolname"),
    settings: await rows("SELECT name, setting FROM pg_settings WHERE source <> 'default' ORDER BY name"),
    relations: await rows("SELECT count(*)::int AS n FROM pg_class"),
    userTables: await rows("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"),
  };
}

describe("the new-cluster image", () => {
  it("loads as the cluster initdb makes: same databases, roles, settings and catalog", async () => {
    const fresh = await PGlite.create();
    const loaded = await PGlite.create({ loadDataDir: await newClusterImage() });
    try {
      expect(await describeCluster(loaded)).toEqual(await describeCluster(fresh));
    } finally {
      await Promise.all([fresh.close(), loaded.close()]);
    }
  }, 60_000);

  it("is made once, kept whole in the cache, named by PGlite's version, and read anew at each start", async () => {
    const image = await newClusterImage();
    const path = await imagePath();
    const keptAt = (await stat(path)).mtimeMs;
    const again = await newClusterImage();
    // Not held between starts: a long-running process keeps none of it.
    expect(again).not.toBe(image);
    expect(again.size).toBe(image.size);
    expect((await stat(path)).mtimeMs).toBe(keptAt);
    expect(path).toMatch(/\.cache\/pglite\/pglite-\d+\.\d+\.\d+\.tar$/);
    // Processes starting at once may each make one (initdb's differ in their cluster's id): the
    // kept one is whole, a tar archive of the same size.
    const kept = await readFile(path);
    expect(kept.length).toBe(image.size);
    expect(kept.subarray(257, 262).toString()).toBe("ustar");
  });
});
