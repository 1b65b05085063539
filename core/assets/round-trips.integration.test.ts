// Database round trips per request, counted by the local Neon endpoint: every asset request is
// one statement on every path (success, 404, 409, 412), and a request refused from its headers,
// path or body alone costs none.
import { expect, it } from "vitest";
import { createAsset, freshId, statementsOf } from "../../test/assets/helpers.ts";
import { describeOnBackends, type RequestOptions } from "../../test/support/harness.ts";

describeOnBackends("assets: one round trip per request", (h) => {
  const cost = async (path: string, options: RequestOptions) => {
    const { result, statements } = await statementsOf(h(), () => h().request(path, options));
    return { status: result.status, statements };
  };

  it("every write path costs exactly one statement", async () => {
    const draft = await createAsset(h());
    const approved = await createAsset(h());
    const approval = await cost(`/v1/assets/${approved.id}/approve`, {
      method: "POST",
      headers: { "if-match": approved.etag },
    });
    const approvedEtag = (await h().request(`/v1/assets/${approved.id}`)).headers.get("etag")!;
    const body = { name: "n", material: "m" };
    const freshKey = freshId("key");

    const paths: Array<[string, string, RequestOptions, number]> = [
      ["POST", "/v1/assets", { body }, 201],
      ["POST with a new Idempotency-Key", "/v1/assets", { body, headers: { "idempotency-key": freshKey } }, 201],
      ["POST replayed", "/v1/assets", { body, headers: { "idempotency-key": freshKey } }, 201],
      [
        "POST key reused",
        "/v1/assets",
        { body: { ...body, name: "x" }, headers: { "idempotency-key": freshKey } },
        422,
      ],
      ["PUT create", `/v1/assets/${freshId()}`, { body, headers: { "if-none-match": "*" } }, 201],
      ["PUT create, exists", `/v1/assets/${draft.id}`, { body, headers: { "if-none-match": "*" } }, 412],
      ["PUT replace, stale", `/v1/assets/${draft.id}`, { body, headers: { "if-match": '"stale"' } }, 412],
      ["PATCH absent", `/v1/assets/${freshId()}`, { body, headers: { "if-match": "*" } }, 404],
      ["PATCH stale", `/v1/assets/${draft.id}`, { body, headers: { "if-match": '"stale"' } }, 412],
      ["PATCH approved", `/v1/assets/${approved.id}`, { body, headers: { "if-match": approvedEtag } }, 409],
      ["PATCH", `/v1/assets/${draft.id}`, { body, headers: { "if-match": draft.etag } }, 200],
      ["DELETE stale", `/v1/assets/${draft.id}`, { headers: { "if-match": draft.etag } }, 412],
      ["DELETE approved", `/v1/assets/${approved.id}`, { headers: { "if-match": "*" } }, 409],
      ["DELETE", `/v1/assets/${draft.id}`, { headers: { "if-match": "*" } }, 204],
      ["DELETE absent", `/v1/assets/${draft.id}`, { headers: { "if-match": "*" } }, 404],
      ["GET", `/v1/assets/${approved.id}`, {}, 200],
      ["GET 304", `/v1/assets/${approved.id}`, { headers: { "if-none-match": approvedEtag } }, 304],
    ];
    const method = (label: string) => label.split(" ")[0]!;
    const measured = [["approve", approval.status, approval.statements]];
    for (const [label, path, options, _] of paths) {
      const { status, statements } = await cost(path, { method: method(label), ...options });
      measured.push([label, status, statements]);
    }
    expect(measured).toEqual([["approve", 200, 1], ...paths.map(([label, , , status]) => [label, status, 1])]);
  });

  it("requests refused before the database cost nothing", async () => {
    const { id, etag } = await createAsset(h());
    const refused: Array<[string, RequestOptions, number]> = [
      [`/v1/assets/${id}`, { method: "PATCH", body: { name: "x" } }, 428],
      [`/v1/assets/${id}`, { method: "PATCH", body: { name: "x" }, headers: { "if-match": "nope" } }, 400],
      [`/v1/assets/${id}`, { method: "PATCH", body: {}, headers: { "if-match": etag } }, 422],
      [`/v1/assets/${id}`, { method: "PUT", body: { name: "x", material: "y" } }, 428],
      [
        "/v1/assets/bad%20id",
        { method: "PUT", body: { name: "x", material: "y" }, headers: { "if-none-match": "*" } },
        422,
      ],
      ["/v1/assets/bad%20id", { method: "GET" }, 404],
      [`/v1/assets/${id}`, { method: "DELETE" }, 428],
      [`/v1/assets/${id}/approve`, { method: "POST" }, 428],
      ["/v1/assets", { method: "POST", body: { name: "x" } }, 422],
    ];
    for (const [path, options, status] of refused) {
      expect(await cost(path, options), `${options.method} ${path}`).toEqual({ status, statements: 0 });
    }
  });
});
