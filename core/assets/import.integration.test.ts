// POST /v1/assets/import through the production path, on PGlite and on the real PostgreSQL.
import { expect, it } from "vitest";
import { createAsset, freshId, getAsset, OTHER_TENANT, statementsOf } from "../../test/assets/helpers.ts";
import { describeOnBackends, type Harness } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import { MAX_BODY_BYTES } from "../http/body.ts";

const HEADER = "id,name,material,source_etag";
const opaque = (etag: string) => etag.slice(1, -1);

const importCsv = (h: Harness, csv: string | Uint8Array, contentType = "text/csv; charset=utf-8") =>
  h.request("/v1/assets/import", { method: "POST", body: csv, headers: { "content-type": contentType } });

describeOnBackends("assets: CSV import", (h) => {
  it("each row is its own compare-and-set: updated, conflict, not_found, locked, invalid - in input order", async () => {
    const fresh = await createAsset(h(), { name: "Chair", material: "oak" });
    const stale = await createAsset(h(), { name: "Table", material: "pine" });
    const moved = await patchAssetName(h(), stale.id, stale.etag, "Table v2");
    const locked = await createAsset(h(), { name: "Lamp", material: "brass" });
    const approved = await h().request(`/v1/assets/${locked.id}/approve`, {
      method: "POST",
      headers: { "if-match": locked.etag },
    });
    const lockedEtag = approved.headers.get("etag")!;
    const theirs = await createAsset(h(), { name: "Theirs", material: "pine" }, OTHER_TENANT);
    const absent = freshId();

    const csv = [
      HEADER,
      `${fresh.id},"Chair, oak","say ""hi""",${opaque(fresh.etag)}`,
      `${stale.id},Table from A,pine,${opaque(stale.etag)}`,
      `${absent},Ghost,air,abc`,
      `${locked.id},Lamp v2,brass,${opaque(lockedEtag)}`,
      `${theirs.id},hijacked,pine,${opaque(theirs.etag)}`,
      `bad id,x,y,abc`,
      `${fresh.id},,y,abc`,
    ].join("\r\n");
    const { result: response, statements } = await statementsOf(h(), () => importCsv(h(), csv));
    expect(statements).toBe(1);
    expect(response.status).toBe(200);
    const { results } = await response.json();
    expect(results.map((r: { line: number; id: string; outcome: string }) => [r.line, r.id, r.outcome])).toEqual([
      [2, fresh.id, "updated"],
      [3, stale.id, "conflict"],
      [4, absent, "not_found"],
      [5, locked.id, "locked"],
      [6, theirs.id, "not_found"],
      [7, "bad id", "invalid"],
      [8, fresh.id, "invalid"],
    ]);
    expect(results[6].errors).toEqual([expect.objectContaining({ field: "name" })]);

    const updated = await getAsset(h(), fresh.id);
    expect(updated.body).toMatchObject({ name: "Chair, oak", material: 'say "hi"' });
    expect(results[0].etag).toBe(opaque(updated.etag!));
    expect(results.slice(1).every((r: { etag?: string }) => r.etag === undefined)).toBe(true);
    // Nothing but the one valid, current row was written.
    expect(await getAsset(h(), stale.id)).toMatchObject({ etag: moved, body: { name: "Table v2" } });
    expect((await getAsset(h(), locked.id)).etag).toBe(lockedEtag);
    expect(await getAsset(h(), theirs.id, OTHER_TENANT)).toMatchObject({ etag: theirs.etag, body: { name: "Theirs" } });
    expect((await getAsset(h(), absent)).status).toBe(404);
  });

  it("the same asset twice in one upload is written once: the later row names a replaced version", async () => {
    const asset = await createAsset(h());
    const csv = [
      HEADER,
      `${asset.id},First,oak,${opaque(asset.etag)}`,
      `${asset.id},Second,oak,${opaque(asset.etag)}`,
    ].join("\n");
    const { results } = await (await importCsv(h(), csv)).json();
    expect(results.map((r: { outcome: string }) => r.outcome)).toEqual(["updated", "conflict"]);
    expect((await getAsset(h(), asset.id)).body.name).toBe("First");
  });

  it("a stale row before a current one for the same asset: conflict, then updated", async () => {
    const asset = await createAsset(h());
    const csv = [HEADER, `${asset.id},Stale,oak,0000`, `${asset.id},Current,oak,${opaque(asset.etag)}`].join("\n");
    const { results } = await (await importCsv(h(), csv)).json();
    expect(results.map((r: { outcome: string }) => r.outcome)).toEqual(["conflict", "updated"]);
    expect((await getAsset(h(), asset.id)).body.name).toBe("Current");
  });

  it("BOM, CRLF and a quoted line break survive into the stored values", async () => {
    const asset = await createAsset(h());
    const csv = `\ufeff${HEADER}\r\n${asset.id},"two\r\nlines","a,b \\ {c}",${opaque(asset.etag)}\r\n`;
    const { results } = await (await importCsv(h(), csv)).json();
    expect(results).toEqual([{ line: 2, id: asset.id, outcome: "updated", etag: expect.any(String) }]);
    expect((await getAsset(h(), asset.id)).body).toMatchObject({ name: "two\r\nlines", material: "a,b \\ {c}" });
  });

  it("refusals write nothing: 415 wrong type, 422 wrong header, 400 broken quotes, 413 too large or too many rows", async () => {
    const asset = await createAsset(h());
    const row = `${asset.id},Changed,oak,${opaque(asset.etag)}`;
    const refusals: Array<[string, string, number, string]> = [
      [`${HEADER}\n${row}`, "application/json", 415, "unsupported_media_type"],
      [`id,name,material\n${row}`, "text/csv", 422, "validation_failed"],
      [`${HEADER}\n${row}\nx,"open,y,z\n`, "text/csv", 400, "malformed_request"],
      [`${HEADER}\n${row}\n${"a,b,c,d\n".repeat(MAX_BODY_BYTES / 8)}`, "text/csv", 413, "payload_too_large"],
      [`${HEADER}\n${row}\n${"a,b,c,d\n".repeat(1000)}`, "text/csv", 413, "payload_too_large"],
    ];
    for (const [csv, type, status, code] of refusals) {
      const { result, statements } = await statementsOf(h(), () => importCsv(h(), csv, type));
      await expectProblem(result, status, code);
      expect(statements).toBe(0);
    }
    expect((await getAsset(h(), asset.id)).etag).toBe(asset.etag);
  });

  it("reads the body as UTF-8 only: a CSV declaring another charset is refused (415), never misread", async () => {
    const asset = await createAsset(h());
    // "MÃ¼ller" in ISO-8859-1 is the UTF-8 bytes of "Müller": read as UTF-8 it would be stored as that.
    const latin1 = Uint8Array.from(`${HEADER}\n${asset.id},M\xc3\xbcller,oak,${opaque(asset.etag)}\n`, (c) =>
      c.charCodeAt(0),
    );
    for (const charset of ["iso-8859-1", '"windows-1252"', "UTF-16LE"]) {
      const { result, statements } = await statementsOf(h(), () =>
        importCsv(h(), latin1, `text/csv; charset=${charset}`),
      );
      const problem = await expectProblem(result, 415, "unsupported_media_type");
      expect(problem.detail).toContain(`charset=${charset.replaceAll('"', "").toLowerCase()}`);
      expect(statements).toBe(0);
    }
    expect((await getAsset(h(), asset.id)).etag).toBe(asset.etag);
    for (const charset of ["utf-8", '"UTF-8"', "us-ascii"]) {
      const row = `${asset.id},Chair,oak,${opaque((await getAsset(h(), asset.id)).etag!)}`;
      const { results } = await (await importCsv(h(), `${HEADER}\n${row}\n`, `text/csv;charset=${charset}`)).json();
      expect(results).toEqual([expect.objectContaining({ outcome: "updated" })]);
    }
  });

  it("needs the header row: a CSV declaring header=absent is refused (415), its first row never taken for one", async () => {
    const asset = await createAsset(h());
    const row = `${asset.id},Changed,oak,${opaque(asset.etag)}`;
    const { result, statements } = await statementsOf(h(), () => importCsv(h(), `${row}\n`, "text/csv; header=absent"));
    const problem = await expectProblem(result, 415, "unsupported_media_type");
    expect(problem.detail).toContain("header=absent");
    expect(statements).toBe(0);
    const present = await importCsv(h(), `${HEADER}\n${row}\n`, 'text/csv; header="Present"; charset=utf-8');
    expect((await present.json()).results).toEqual([expect.objectContaining({ outcome: "updated" })]);
  });

  it("a header-only or all-invalid upload answers without asking the database", async () => {
    const { result, statements } = await statementsOf(h(), () => importCsv(h(), `${HEADER}\nbad id,x,y,z\n`));
    expect(await result.json()).toEqual({
      results: [{ line: 2, id: "bad id", outcome: "invalid", errors: [expect.objectContaining({ field: "id" })] }],
    });
    expect(statements).toBe(0);
    expect(await (await importCsv(h(), HEADER)).json()).toEqual({ results: [] });
  });
});

async function patchAssetName(h: Harness, id: string, etag: string, name: string): Promise<string> {
  const response = await h.request(`/v1/assets/${id}`, {
    method: "PATCH",
    body: { name },
    headers: { "if-match": etag },
  });
  expect(response.status).toBe(200);
  return response.headers.get("etag")!;
}
