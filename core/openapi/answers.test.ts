// What the app answers, read against the document it serves: every header and every member of a
// problem that an answer carries is one the document names for that answer.
import { describe, expect, it } from "vitest";
import { appOverFailingDatabase } from "../../dev/support/app-over-failing-database.ts";
import { bearer } from "../../dev/support/tokens.ts";
import type { App } from "../app.ts";
import { DatabaseUnavailableError } from "../ports/sql.ts";
import { SettingsError } from "../settings/error.ts";

const down = new DatabaseUnavailableError("connection refused");

interface Documented {
  responses: Record<string, { headers?: Record<string, unknown> }>;
}

async function documentOf(app: App) {
  return (await (await app.request("/openapi.json")).json()) as {
    paths: Record<string, Record<string, Documented>>;
    components: { schemas: { Problem: { properties: Record<string, unknown> } } };
  };
}

const csv = (rows: number) => `id,name,material,source_etag\n${"a,b,c,d\n".repeat(rows)}`;

describe("the answers the document describes", () => {
  it("names Server-Timing among the headers of every answer, as SERVER_TIMING=on sends it", async () => {
    const app = appOverFailingDatabase(down, { SERVER_TIMING: "on" });
    const { paths } = await documentOf(app);
    const answers: [string, string, string, RequestInit?][] = [
      ["/healthz", "get", "/healthz"],
      ["/readyz", "get", "/readyz"],
      ["/v1/me/links", "get", "/v1/me/links", { headers: await bearer() }],
      ["/v1/me/links", "get", "/v1/me/links"],
    ];
    for (const [path, method, url, init] of answers) {
      const response = await app.request(url, init);
      expect(response.headers.get("server-timing"), url).toBeTruthy();
      const documented = paths[path]![method]!.responses[String(response.status)]!;
      expect(Object.keys(documented.headers ?? {}), `${url} ${response.status}`).toContain("server-timing");
    }
  });

  it("names every member of the problems the app answers in its Problem schema", async () => {
    const token = await bearer();
    const limited = appOverFailingDatabase(down, { RATE_LIMIT_CALLER_READS: "1" });
    await limited.request("/v1/me/links", { headers: token });
    const cases: [string, Response][] = [
      ["a caller over its quota", await limited.request("/v1/me/links", { headers: token })],
      ["/readyz without a database", await appOverFailingDatabase(down).request("/readyz")],
      [
        "a login the database refuses",
        await appOverFailingDatabase(new SettingsError("DATABASE_URL", "is refused")).request("/v1/me/links", {
          headers: token,
        }),
      ],
      [
        "an import that cannot be parsed",
        await appOverFailingDatabase(down).request("/v1/assets/import", {
          method: "POST",
          headers: { ...token, "content-type": "text/csv" },
          body: `${csv(0)}"a`,
        }),
      ],
      [
        "an import of too many rows",
        await appOverFailingDatabase(down).request("/v1/assets/import", {
          method: "POST",
          headers: { ...token, "content-type": "text/csv" },
          body: csv(1001),
        }),
      ],
    ];
    const { properties } = (await documentOf(limited)).components.schemas.Problem;
    for (const [what, response] of cases) {
      expect(response.headers.get("content-type"), what).toMatch(/^application\/problem\+json/);
      const members = Object.keys(await response.json());
      expect(Object.keys(properties), what).toEqual(expect.arrayContaining(members));
    }
  });
});
