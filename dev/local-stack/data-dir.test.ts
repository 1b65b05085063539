import { describe, expect, it } from "vitest";
import { pgliteDataDir } from "./data-dir.ts";

describe("pgliteDataDir", () => {
  it("resolves a relative PGLITE_DATA_DIR from the folder npm was run in, not the project's root npm runs scripts from", () => {
    const env = { PGLITE_DATA_DIR: "db", INIT_CWD: "/home/dev/project/docs" };
    expect(pgliteDataDir(env)).toBe("/home/dev/project/docs/db");
    expect(pgliteDataDir({ ...env, PGLITE_DATA_DIR: "/srv/db" })).toBe("/srv/db");
  });
});
