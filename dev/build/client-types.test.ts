import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES_PATH, clientTypes } from "./client-types.ts";

describe("the typed client's types", () => {
  it("are what the app's /openapi.json makes now (else: npm run client:generate)", async () => {
    expect(readFileSync(CLIENT_TYPES_PATH, "utf8")).toBe(await clientTypes());
  });

  it("type numbers of paths and queries as numbers", async () => {
    const types = await clientTypes();
    const operation = (id: string) =>
      types.slice(types.indexOf(`${id}: {`), types.indexOf("requestBody", types.indexOf(`${id}: {`)));
    expect(operation("getV1Documents")).toMatch(/after\?: number;\s+limit\?: number;/);
    expect(operation("getV1MeLinks")).toContain("limit?: number;");
    expect(operation("getV1DocumentsDocNumber")).toContain("docNumber: number;");
  });
});
