// The typed client sends the query parameters an operation takes, as given, and no other: its types
// refuse any other (checked by `npm run typecheck`: each `@ts-expect-error` below fails it the day
// the types would let one through), and it adds none of its own. One forced through anyway is
// refused by the API, naming it.
import { createClient } from "edge-race-free/client";
import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { appOverFailingDatabase } from "../../dev/support/app-over-failing-database.ts";
import { signToken } from "../../dev/support/tokens.ts";

const app = appOverFailingDatabase(new DatabaseUnavailableError("connection refused"));

/** A client whose every request's URL is kept in `sent`. */
async function recordingClient() {
  const sent: URL[] = [];
  const token = await signToken({ role: "admin" });
  const fetch = async (request: Request) => {
    sent.push(new URL(request.url));
    return app.fetch(request);
  };
  return { api: createClient({ baseUrl: "http://api.test", token, fetch }), sent };
}

describe("the client's query", () => {
  it("is what the caller gives, an unset parameter left out, and nothing besides", async () => {
    const { api, sent } = await recordingClient();
    await api.GET("/v1/documents", { params: { query: { after: 20, limit: undefined } } });
    await api.GET("/v1/links/{provider}/{externalAccountId}", {
      params: { path: { provider: "github", externalAccountId: "octo" }, query: { consistency: "strong" } },
    });
    await api.GET("/v1/me/links");
    await api.POST("/v1/admin/links/sync");
    expect(sent.map((url) => url.search)).toEqual(["?after=20", "?consistency=strong", "", ""]);
  });

  it("cannot be given a parameter the operation does not take; one forced through is refused, named", async () => {
    const { api, sent } = await recordingClient();
    // @ts-expect-error `cursor` is no parameter of GET /v1/documents (it takes `after`).
    const paged = await api.GET("/v1/documents", { params: { query: { cursor: 20 } } });
    // @ts-expect-error POST /v1/admin/links/sync takes no query.
    const synced = await api.POST("/v1/admin/links/sync", { params: { query: { force: true } } });
    expect(sent.map((url) => url.search)).toEqual(["?cursor=20", "?force=true"]);
    expect(paged.error).toMatchObject({ status: 422, errors: [{ field: "cursor" }] });
    expect(synced.error).toMatchObject({ status: 422, errors: [{ field: "force" }] });
  });
});
