// The README's tour again, in TypeScript through the typed client the package exports
// (`edge-race-free/client`), on a fresh `npm start`: the same steps, the same answers. Paths,
// parameters and bodies are checked by the compiler against the API's OpenAPI document: numbers
// are numbers (`limit: 10`, `docNumber: 1`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApiClient, createClient, type operations } from "edge-race-free/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../../dev/support/tokens.ts";
import { type Started, startServer } from "../local-stack/processes.ts";

type DocumentsQuery = NonNullable<operations["getV1Documents"]["parameters"]["query"]>;

describe("the README's tour, through the typed client", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "client-tour-"));
  let server: Started | undefined;
  let alice: ApiClient;
  let bob: ApiClient;

  beforeAll(async () => {
    server = await startServer({ PGLITE_DATA_DIR: join(dataDir, "pglite") });
    alice = createClient({ baseUrl: server.url, token: await signToken({ sub: "alice", tid: "acme" }) });
    bob = createClient({ baseUrl: server.url, token: await signToken({ sub: "bob", tid: "acme" }) });
  });

  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("links: the first user to link an account owns it; anyone else gets 409, however they spell it", async () => {
    const account = { path: { provider: "github", externalAccountId: "1234" } };
    const linked = await alice.PUT("/v1/links/{provider}/{externalAccountId}", { params: account });
    expect(linked.response.status).toBe(201);
    expect(linked.data).toMatchObject({ provider: "github", externalAccountId: "1234", userId: "alice" });

    const taken = await bob.PUT("/v1/links/{provider}/{externalAccountId}", {
      params: { path: { provider: "GitHub", externalAccountId: "1234" } },
    });
    expect(taken.response.status).toBe(409);
    expect(taken.error?.code).toBe("external_account_already_linked");

    const read = await alice.GET("/v1/links/{provider}/{externalAccountId}", { params: account });
    expect([read.response.status, read.response.headers.get("x-link-source")]).toEqual([200, "kv"]);
    expect((await alice.DELETE("/v1/links/{provider}/{externalAccountId}", { params: account })).response.status).toBe(
      204,
    );
    expect((await bob.PUT("/v1/links/{provider}/{externalAccountId}", { params: account })).response.status).toBe(201);
  });

  it("assets: every version has a strong ETag; a write names the version it read", async () => {
    const chair = { path: { id: "chair-42" } };
    const created = await alice.PUT("/v1/assets/{id}", {
      params: { ...chair, header: { "if-none-match": "*" } },
      body: { name: "Chair", material: "oak" },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ id: "chair-42", name: "Chair", material: "oak", status: "draft" });
    const etag = created.response.headers.get("etag")!;

    const unchanged = await alice.GET("/v1/assets/{id}", { params: { ...chair, header: { "if-none-match": etag } } });
    expect(unchanged.response.status).toBe(304);

    const mergePatch = { "content-type": "application/merge-patch+json" };
    const changed = await alice.PATCH("/v1/assets/{id}", {
      params: { ...chair, header: { "if-match": etag } },
      headers: mergePatch,
      body: { material: "steel" },
    });
    expect(changed.response.status).toBe(200);
    expect(changed.data).toMatchObject({ id: "chair-42", name: "Chair", material: "steel" });

    const stale = await bob.PATCH("/v1/assets/{id}", {
      params: { ...chair, header: { "if-match": etag } },
      headers: mergePatch,
      body: { material: "pine" },
    });
    expect([stale.response.status, stale.error?.code]).toEqual([412, "precondition_failed"]);
  });

  it("documents: consecutive numbers per tenant; a retry with the same Idempotency-Key allocates nothing", async () => {
    const order = {
      params: { header: { "idempotency-key": "order-7" } },
      body: { contractId: "C-7", title: "Order 7" },
    };
    const first = await alice.POST("/v1/documents", order);
    expect(first.response.status).toBe(201);
    expect(first.data).toMatchObject({ tenantId: "acme", docNumber: 1, contractId: "C-7", title: "Order 7" });

    const replay = await alice.POST("/v1/documents", order);
    expect([replay.response.status, replay.response.headers.get("idempotent-replayed")]).toEqual([201, "true"]);

    const second = await bob.POST("/v1/documents", { body: { contractId: "C-8" } });
    expect(second.data).toMatchObject({ tenantId: "acme", docNumber: 2, contractId: "C-8", title: null });

    const page = await bob.GET("/v1/documents", { params: { query: { limit: 10 } } });
    expect(page.response.status).toBe(200);
    expect(page.data?.items.map(({ docNumber, contractId }) => ({ docNumber, contractId }))).toEqual([
      { docNumber: 1, contractId: "C-7" },
      { docNumber: 2, contractId: "C-8" },
    ]);
    expect(page.data?.next).toBeNull();

    const byNumber = await bob.GET("/v1/documents/{docNumber}", {
      params: { path: { docNumber: second.data!.docNumber } },
    });
    expect(byNumber.data?.contractId).toBe("C-8");
  });

  it("types a number of a query or a path as a number, not as its text", () => {
    const query: DocumentsQuery = { after: 0, limit: 10 };
    // @ts-expect-error "10" is the text of a number: the compiler refuses it
    const text: DocumentsQuery = { limit: "10" };
    expect([query.limit, text.limit]).toEqual([10, "10"]);
  });
});
