import { expect, it } from "vitest";
import { describeOnBackends, type Harness } from "../../test/support/harness.ts";

// Each test works in a tenant of its own, so the numbers it sees start at 1.
const newTenant = () => `t-${crypto.randomUUID().slice(0, 8)}`;

describeOnBackends("documents", (harness) => {
  const post = (tid: string, body: unknown, headers: Record<string, string> = {}) =>
    harness().request("/v1/documents", { method: "POST", as: { tid }, body, headers });
  const get = (tid: string, path: string) => harness().request(path, { as: { tid } });
  const numbersOf = async (tid: string) => {
    const page = (await (await get(tid, "/v1/documents?limit=100")).json()) as { items: { docNumber: number }[] };
    return page.items.map((item) => item.docNumber);
  };

  it("creates a document numbered 1, 2, 3 … per tenant, with Location", async () => {
    const tid = newTenant();
    const first = await post(tid, { contractId: "C-1", title: "Master agreement" });
    expect(first.status).toBe(201);
    const body = await first.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: tid,
      docNumber: 1,
      contractId: "C-1",
      title: "Master agreement",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(first.headers.get("location")).toBe("/v1/documents/1");
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    const second = await (await post(tid, { contractId: "C-2" })).json();
    expect(second).toMatchObject({ docNumber: 2, title: null });
    expect((await (await post(newTenant(), { contractId: "C-1" })).json()).docNumber).toBe(1);
  });

  it("takes exactly one database round trip per new document", async () => {
    const tid = newTenant();
    await post(tid, { contractId: "warm-up" }); // the tenant's counter row exists or not: same cost
    const keyed: Record<string, string>[] = [{}, { "idempotency-key": `k-${tid}` }];
    for (const headers of keyed) {
      const before = harness().stack.endpoint.statements();
      expect((await post(tid, { contractId: "C" }, headers)).status).toBe(201);
      expect(harness().stack.endpoint.statements() - before).toBe(1);
    }
  });

  it("replays a retry with the same key and body: same response, one round trip, no number used", async () => {
    const tid = newTenant();
    const key = { "idempotency-key": "order-42" };
    const original = await post(tid, { contractId: "C-9", title: "Invoice" }, key);
    expect(original.status).toBe(201);
    const originalBody = await original.json();

    const before = harness().stack.endpoint.statements();
    // The same request, spelled differently: other key order and whitespace.
    const retry = await post(tid, '{ "title" : "Invoice",\n "contractId":"C-9" }', {
      ...key,
      "content-type": "application/json; charset=utf-8",
    });
    expect(harness().stack.endpoint.statements() - before).toBe(1);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.headers.get("location")).toBe(original.headers.get("location"));
    expect(await retry.json()).toEqual(originalBody);

    expect((await (await post(tid, { contractId: "C-10" })).json()).docNumber).toBe(originalBody.docNumber + 1);
    expect(await numbersOf(tid)).toEqual([1, 2]);
  });

  it("treats an absent title and a null title as the same request", async () => {
    const tid = newTenant();
    const key = { "idempotency-key": "same" };
    expect((await post(tid, { contractId: "C" }, key)).status).toBe(201);
    const retry = await post(tid, { contractId: "C", title: null }, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
  });

  it("keeps text as sent, not Unicode-normalized: a composed é and e + U+0301 are two requests", async () => {
    const tid = newTenant();
    const key = { "idempotency-key": "accents" };
    const first = await post(tid, { contractId: "C", title: "Facture \u00e9t\u00e9" }, key);
    expect(await first.json()).toMatchObject({ title: "Facture \u00e9t\u00e9" });
    const decomposed = await post(tid, { contractId: "C", title: "Facture e\u0301te\u0301" }, key);
    expect(await decomposed.json()).toMatchObject({ status: 422, code: "idempotency_key_reused" });
  });

  it("answers 422 idempotency_key_reused for the same key with another body, and adds nothing", async () => {
    const tid = newTenant();
    const key = { "idempotency-key": "reused" };
    expect((await post(tid, { contractId: "C-1" }, key)).status).toBe(201);
    for (const body of [{ contractId: "C-2" }, { contractId: "C-1", title: "" }, { contractId: "C-1", title: "T" }]) {
      const reuse = await post(tid, body, key);
      expect(reuse.status).toBe(422);
      expect(reuse.headers.get("content-type")).toBe("application/problem+json");
      expect(await reuse.json()).toMatchObject({ status: 422, code: "idempotency_key_reused" });
    }
    expect((await (await post(tid, { contractId: "C-3" })).json()).docNumber).toBe(2);
  });

  it("scopes keys to the tenant", async () => {
    const [a, b] = [newTenant(), newTenant()];
    const key = { "idempotency-key": "shared-key" };
    await post(a, { contractId: "C-A" }, key);
    await post(a, { contractId: "C-A2" });
    const other = await post(b, { contractId: "C-B" }, key);
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(await other.json()).toMatchObject({ tenantId: b, docNumber: 1, contractId: "C-B" });
  });

  it.each([
    ["an empty key", ""],
    ["a key with a space", "a b"],
    ["a 256-character key", "k".repeat(256)],
  ])("refuses %s with 400 and writes nothing", async (_why, value) => {
    const tid = newTenant();
    const response = await post(tid, { contractId: "C" }, { "idempotency-key": value });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "malformed_request" });
    expect(await numbersOf(tid)).toEqual([]);
  });

  it.each([
    ["no contractId", {}],
    ["an empty contractId", { contractId: "" }],
    ["a 129-character contractId", { contractId: "c".repeat(129) }],
    ["a number as contractId", { contractId: 7 }],
    ["a NUL in contractId", { contractId: "a\u0000b" }],
    ["a lone surrogate in title", { contractId: "C", title: "\ud800" }],
    ["a 201-character title", { contractId: "C", title: "t".repeat(201) }],
    ["an unknown field", { contractId: "C", docNumber: 5 }],
    ["an array", [{ contractId: "C" }]],
    ["null", null],
  ])("refuses %s with 422 validation_failed and uses no number", async (_why, body) => {
    const tid = newTenant();
    const response = await post(tid, body, { "idempotency-key": "k" });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "validation_failed", errors: expect.any(Array) });
    // The key was not taken either: it still creates document 1.
    const next = await post(tid, { contractId: "C" }, { "idempotency-key": "k" });
    expect(await next.json()).toMatchObject({ docNumber: 1 });
  });

  it.each([
    ["an empty contractId", { contractId: "" }, "contractId", "must not be blank"],
    ["a contractId of spaces only", { contractId: "   " }, "contractId", "must not be blank"],
    ["a 129-character contractId", { contractId: "c".repeat(129) }, "contractId", "must be at most 128 characters"],
    ["a line break in title", { contractId: "C", title: "a\nb" }, "title", "must not contain control characters"],
    ["a lone surrogate in title", { contractId: "C", title: "\ud800" }, "title", "must not contain lone surrogates"],
    ["a JSON array", ["C-7", "Order 7"], "", "must be a JSON object"],
  ])("says what is wrong with %s", async (_why, body, field, message) => {
    const tid = newTenant();
    const response = await post(tid, body);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "validation_failed", errors: [{ field, message }] });
    expect(await numbersOf(tid)).toEqual([]);
  });

  it("accepts the longest allowed fields", async () => {
    const response = await post(newTenant(), { contractId: "c".repeat(128), title: "t".repeat(200) });
    expect(response.status).toBe(201);
  });

  it("answers 400 for malformed JSON and 415 for another media type", async () => {
    const tid = newTenant();
    expect((await post(tid, "{ nope", { "content-type": "application/json" })).status).toBe(400);
    expect((await post(tid, "contractId=C", { "content-type": "application/x-www-form-urlencoded" })).status).toBe(415);
    expect(await numbersOf(tid)).toEqual([]);
  });

  it("needs a token", async () => {
    const response = await harness().request("/v1/documents", { method: "POST", as: null, body: { contractId: "C" } });
    expect(response.status).toBe(401);
  });

  it("reads a document by number; another tenant's is not found", async () => {
    const tid = newTenant();
    const created = await (await post(tid, { contractId: "C-7", title: "Seven" })).json();
    const read = await get(tid, "/v1/documents/1");
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(created);
    const stranger = await get(newTenant(), "/v1/documents/1");
    expect(stranger.status).toBe(404);
    expect(await stranger.json()).toMatchObject({ code: "not_found" });
  });

  it.each(["2", "0", "-1", "1.5", "01", "abc", "9007199254740992", "99999999999999999999"])(
    "answers 404 for document %s",
    async (number) => {
      const tid = newTenant();
      await post(tid, { contractId: "C" });
      const response = await get(tid, `/v1/documents/${number}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: "not_found" });
    },
  );

  it("lists a tenant's documents page by page (keyset)", async () => {
    const tid = newTenant();
    for (let i = 1; i <= 5; i++) await post(tid, { contractId: `C-${i}` });
    await post(newTenant(), { contractId: "elsewhere" });

    const pages = await walk(harness(), tid, 2);
    expect(pages.map((page) => page.items.map((item) => item.docNumber))).toEqual([[1, 2], [3, 4], [5]]);
    expect(pages.map((page) => page.next)).toEqual([2, 4, null]);
    expect(pages.flatMap((page) => page.items.map((item) => item.contractId))).toEqual([
      "C-1",
      "C-2",
      "C-3",
      "C-4",
      "C-5",
    ]);

    const exact = await (await get(tid, "/v1/documents?after=3&limit=2")).json();
    expect(exact).toMatchObject({ items: [{ docNumber: 4 }, { docNumber: 5 }], next: null });
    expect(await (await get(tid, "/v1/documents?after=5")).json()).toEqual({ items: [], next: null });
    expect(await (await get(newTenant(), "/v1/documents")).json()).toEqual({ items: [], next: null });
  });

  it("lists 20 by default", async () => {
    const tid = newTenant();
    await Promise.all(Array.from({ length: 21 }, (_, i) => post(tid, { contractId: `C-${i}` })));
    const page = await (await get(tid, "/v1/documents")).json();
    expect(page.items).toHaveLength(20);
    expect(page.next).toBe(20);
  });

  it.each([
    "limit=0",
    "limit=101",
    "limit=abc",
    "limit=",
    "limit=1.5",
    "after=-1",
    "after=x",
    "after=01",
    "after=9007199254740992",
  ])("answers 422 for %s", async (query) => {
    const response = await get(newTenant(), `/v1/documents?${query}`);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "validation_failed" });
  });

  it("answers unknown methods on document paths with 405 and Allow, numbering nothing", async () => {
    const tid = newTenant();
    expect((await post(tid, { contractId: "C-0" })).status).toBe(201); // a document none of them changes
    const cases = [
      ["/v1/documents", "DELETE", "GET, HEAD, POST"],
      ["/v1/documents/1", "PUT", "GET, HEAD"],
      ["/v1/documents/1", "PATCH", "GET, HEAD"],
      ["/v1/documents/1", "DELETE", "GET, HEAD"],
    ] as const;
    for (const [path, method, allow] of cases) {
      const response = await harness().request(path, { method, as: { tid }, body: { contractId: "C-1" } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe(allow);
      expect(await response.json()).toMatchObject({ code: "method_not_allowed" });
    }
    expect(await numbersOf(tid)).toEqual([1]);
    expect(await (await get(tid, "/v1/documents/1")).json()).toMatchObject({ contractId: "C-0" });
  });
});

interface Page {
  items: { docNumber: number; contractId: string }[];
  next: number | null;
}

async function walk(harness: Harness, tid: string, limit: number): Promise<Page[]> {
  const pages: Page[] = [];
  let after = 0;
  for (;;) {
    const response = await harness.request(`/v1/documents?after=${after}&limit=${limit}`, { as: { tid } });
    const page = (await response.json()) as Page;
    pages.push(page);
    if (page.next === null) return pages;
    after = page.next;
  }
}
