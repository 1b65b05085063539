// SQL only through bound parameters: injection strings sent through every field, path segment,
// header and claim the API reads are stored and answered verbatim (or refused by validation), and
// every table is still there afterwards, holding only what the requests meant to write.
import { expect, it } from "vitest";
import { ASSET_ID_PATTERN } from "../../core/assets/model.ts";
import { describeOnBackends, type Harness } from "../support/harness.ts";
import { expectProblem } from "../support/problems.ts";
import { bodyFieldsOf, parametersOf, routes, withParameter } from "../support/routes.ts";
import { csvField } from "./hostile-values.ts";

// Quotes, comments, placeholders, casts, dollar quoting, escapes, array and JSON literals,
// percent-encoding, look-alike quotes: each a way out of a string literal somewhere.
const INJECTIONS = [
  "'; DROP TABLE assets; --",
  "Robert'); DROP TABLE documents;--",
  "' OR '1'='1",
  '" OR ""="',
  "$1",
  "$2::text",
  "$$; DROP TABLE linked_external_accounts; $$",
  "%27; DROP TABLE assets; --",
  "\\'; SELECT pg_sleep(10); --",
  "1; DELETE FROM document_sequences",
  "' UNION SELECT etag FROM assets --",
  "*/ DROP TABLE assets /*",
  "E'\\x27'",
  "NULL",
  "{NULL}",
  '{"a","b"}',
  'a","b',
  "\\",
  '\\\\"',
  "ʼ; DROP TABLE assets; --",
  "＇; DROP TABLE documents; --",
  "😀'); DROP TABLE documents; --",
  '{"$gt": ""}',
];

// The same ideas within the visible-ASCII, no-space alphabets of Idempotency-Key and opaque-tags.
const TIGHT_INJECTIONS = [
  "';DROP/**/TABLE/**/documents;--",
  "$1",
  "{NULL}",
  "\\",
  "%27",
  "'||(SELECT'x')||'",
  "a,b}",
  "NULL",
];

async function tables(harness: Harness): Promise<string[]> {
  const rows = await harness.sql.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1",
  );
  return rows.map((row) => row.name);
}

/** The injections a field's own pattern refuses ("NULL" is a fine provider, tenant or asset id). */
const outside = (pattern: RegExp) => INJECTIONS.filter((text) => !pattern.test(text));

/** The path with each query parameter in turn (or one unknown parameter) set to `text`. */
function withQueryValues(at: string, text: string): string[] {
  const url = new URL(at, "http://localhost");
  const names = [...url.searchParams.keys()];
  return (names.length > 0 ? names : ["unknown"]).map((name) => {
    const changed = new URL(url);
    changed.searchParams.set(name, text);
    return changed.pathname + changed.search;
  });
}

const path = (...segments: string[]) => `/${segments.map(encodeURIComponent).join("/")}`;

describeOnBackends("injection strings in every field", (h) => {
  let before: string[];

  it("knows the tables it must find intact at the end", async () => {
    before = await tables(h());
    expect(before).toEqual(
      expect.arrayContaining(["assets", "documents", "document_sequences", "linked_external_accounts"]),
    );
  });

  it("links: external id (path), display name (body) and user id (token sub) round-trip verbatim", async () => {
    for (const text of INJECTIONS) {
      const as = { sub: text, tid: "acme" };
      const at = path("v1", "links", "github", text);
      const linked = await h().request(at, { method: "PUT", as, body: { displayName: text } });
      expect(linked.status, text).toBe(201);
      const expected = { provider: "github", externalAccountId: text, userId: text, displayName: text };
      expect(await linked.json()).toMatchObject(expected);
      expect(await (await h().request(`${at}?consistency=strong`, { as })).json()).toMatchObject(expected);
      expect(await (await h().request(at, { as })).json()).toMatchObject(expected);
      expect(await (await h().request("/v1/me/links", { as })).json()).toMatchObject({ items: [expected] });
    }
    const [{ count }] = (await h().sql.query("SELECT count(*)::int AS count FROM linked_external_accounts")) as [
      { count: number },
    ];
    expect(count).toBe(INJECTIONS.length);
    // And unlinked again, each removing exactly its own row.
    for (const [i, text] of INJECTIONS.entries()) {
      expect(
        (await h().request(path("v1", "links", "github", text), { method: "DELETE", as: { sub: text } })).status,
      ).toBe(204);
      const [{ left }] = (await h().sql.query("SELECT count(*)::int AS left FROM linked_external_accounts")) as [
        { left: number },
      ];
      expect(left).toBe(INJECTIONS.length - i - 1);
    }
  });

  it("links: a provider or tenant made of injection is refused, writing nothing", async () => {
    for (const text of outside(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)) {
      await expectProblem(
        await h().request(path("v1", "links", text, "acct"), { method: "PUT" }),
        422,
        "validation_failed",
      );
    }
    for (const text of outside(/^[A-Za-z0-9_-]{1,64}$/)) {
      await expectProblem(await h().request("/v1/me/links", { as: { sub: "x", tid: text } }), 401, "unauthorized");
    }
    expect(await h().sql.query("SELECT 1 FROM linked_external_accounts")).toEqual([]);
  });

  it("assets: name and material (JSON and CSV), ETags and ids are data, never SQL", async () => {
    for (const text of INJECTIONS) {
      const created = await h().request("/v1/assets", { method: "POST", body: { name: text, material: text } });
      expect(created.status, text).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const etag = created.headers.get("etag")!;
      // An If-Match naming injection matches nothing; the asset is untouched.
      for (const tag of TIGHT_INJECTIONS) {
        const refused = await h().request(`/v1/assets/${id}`, {
          method: "PATCH",
          headers: { "if-match": `"${tag}"` },
          body: { name: "x" },
        });
        await expectProblem(refused, 412, "precondition_failed");
      }
      const patched = await h().request(`/v1/assets/${id}`, {
        method: "PATCH",
        headers: { "if-match": etag },
        body: { material: `${text}!` },
      });
      expect(await patched.json()).toMatchObject({ name: text, material: `${text}!` });
      const csv = `id,name,material,source_etag\n${id},${csvField(`${text}?`)},${csvField(text)},${patched.headers.get("etag")!.slice(1, -1)}\n`;
      const imported = await h().request("/v1/assets/import", {
        method: "POST",
        headers: { "content-type": "text/csv" },
        body: csv,
      });
      expect(await imported.json()).toMatchObject({ results: [{ outcome: "updated" }] });
      expect(await (await h().request(`/v1/assets/${id}`)).json()).toMatchObject({ name: `${text}?`, material: text });
    }
  });

  it("assets: an id or import source_etag made of injection is refused or matches nothing", async () => {
    for (const text of outside(ASSET_ID_PATTERN)) {
      const at = path("v1", "assets", text);
      const created = await h().request(at, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { name: "n", material: "m" },
      });
      await expectProblem(created, 422, "validation_failed");
      await expectProblem(await h().request(at), 404, "not_found");
    }
    const [{ id }] = (await h().sql.query("SELECT id FROM assets LIMIT 1")) as [{ id: string }];
    for (const tag of TIGHT_INJECTIONS) {
      const csv = `id,name,material,source_etag\n${id},Changed,clay,${csvField(tag)}\n`;
      const imported = await h().request("/v1/assets/import", {
        method: "POST",
        headers: { "content-type": "text/csv" },
        body: csv,
      });
      expect(await imported.json(), tag).toMatchObject({ results: [{ outcome: "conflict" }] });
    }
    expect(await h().sql.query("SELECT 1 FROM assets WHERE name = 'Changed'")).toEqual([]);
  });

  it("documents: contract id, title and Idempotency-Key round-trip verbatim and replay exactly", async () => {
    for (const [i, text] of INJECTIONS.entries()) {
      const key = TIGHT_INJECTIONS[i % TIGHT_INJECTIONS.length]! + i;
      const request = { method: "POST", headers: { "idempotency-key": key }, body: { contractId: text, title: text } };
      const created = await h().request("/v1/documents", request);
      expect(created.status, text).toBe(201);
      const document = (await created.json()) as { docNumber: number };
      expect(document).toMatchObject({ contractId: text, title: text, docNumber: i + 1 });
      const replayed = await h().request("/v1/documents", request);
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect(await replayed.json()).toEqual(document);
      expect(await (await h().request(`/v1/documents/${document.docNumber}`)).json()).toEqual(document);
    }
    for (const text of INJECTIONS) {
      await expectProblem(
        await h().request(`/v1/documents?after=${encodeURIComponent(text)}`),
        422,
        "validation_failed",
      );
      await expectProblem(await h().request(path("v1", "documents", text)), 404, "not_found");
    }
    const [{ count }] = (await h().sql.query("SELECT count(*)::int AS count FROM documents")) as [{ count: number }];
    expect(count).toBe(INJECTIONS.length);
  });

  // Every route of the table, so a new one is covered the day it lands: each path parameter, query
  // parameter (or an unknown one) and JSON field in turn carries each injection (as its own tenant, leaving the counts above alone).
  it.each(routes.map((route) => [route.key, route] as const))(
    "%s: injection in any parameter or field never breaks it",
    async (_key, route) => {
      const json = bodyFieldsOf(route).length > 0 ? (route.example.body as Record<string, unknown>) : {};
      for (const text of INJECTIONS) {
        const variants = [
          ...parametersOf(route).map((parameter) => ({
            ...route.example,
            path: withParameter(route, parameter, text),
          })),
          ...withQueryValues(route.example.path, text).map((at) => ({ ...route.example, path: at })),
          ...bodyFieldsOf(route).map((field) => ({ ...route.example, body: { ...json, [field]: text } })),
        ];
        for (const { path: at, ...options } of variants) {
          const response = await h().request(at, {
            ...options,
            as: { sub: "ops", tid: "injection-routes", role: "admin" },
          });
          expect(response.status, `${route.key} with ${text}`).toBeLessThan(500);
        }
      }
    },
  );

  it("leaves every table in place", async () => {
    expect(await tables(h())).toEqual(before);
    const [sequence] = await h().sql.query(
      "SELECT last_number::int AS n FROM document_sequences WHERE tenant_id = 'acme'",
    );
    expect(sequence).toEqual({ n: INJECTIONS.length });
  });
});
