// Every status of the Assets contract's creates and reads, on PGlite and on the real PostgreSQL,
// through the production path (app → Neon client → local endpoint → database); its conditional
// writes are in conditional-writes.integration.test.ts.
import { expect, it } from "vitest";
import { createAsset, freshId, getAsset, OTHER_TENANT, patchAsset, STRONG_ETAG } from "../../test/assets/helpers.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";

describeOnBackends("assets: create and read", (h) => {
  it("POST creates a draft: 201, Location, strong ETag, the representation", async () => {
    const response = await h().request("/v1/assets", { method: "POST", body: { name: " Chair ", material: "oak" } });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toEqual({
      id: expect.any(String),
      name: "Chair",
      material: "oak",
      status: "draft",
      updatedAt: expect.any(String),
    });
    expect(Object.keys(body).sort()).toEqual(["id", "material", "name", "status", "updatedAt"]);
    expect(response.headers.get("location")).toBe(`/v1/assets/${body.id}`);
    expect(response.headers.get("etag")).toMatch(STRONG_ETAG);
    const read = await getAsset(h(), body.id);
    expect(read).toEqual({ status: 200, etag: response.headers.get("etag"), body });
  });

  it("POST with an Idempotency-Key: a retry answers the first 201 again and creates nothing, even after a change or a deletion", async () => {
    const tid = freshId("idem");
    const as = { tid };
    const post = (body: unknown, key = "create-chair") =>
      h().request("/v1/assets", { method: "POST", as, body, headers: { "idempotency-key": key } });
    const first = await post({ name: "Chair", material: "oak" });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const created = await first.json();
    // Same request, spelled differently: the same meaning is the same request.
    const retry = await post({ material: "oak", name: " Chair " });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.json()).toEqual(created);
    expect(retry.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(retry.headers.get("location")).toBe(first.headers.get("location"));
    // The asset changes: a retry still gets the first answer, whose ETag is now stale.
    expect((await patchAsset(h(), created.id, first.headers.get("etag")!, { name: "Armchair" }, as)).status).toBe(200);
    const late = await post({ name: "Chair", material: "oak" });
    expect(await late.json()).toEqual(created);
    const rows = await h().sql.query("SELECT id FROM assets WHERE tenant_id = $1", [tid]);
    expect(rows).toEqual([{ id: created.id }]);
    // Deleted: a retry still gets the first answer, and brings nothing back.
    const deleted = await h().request(`/v1/assets/${created.id}`, {
      method: "DELETE",
      as,
      headers: { "if-match": "*" },
    });
    expect(deleted.status).toBe(204);
    const afterDeletion = await post({ name: "Chair", material: "oak" });
    expect([afterDeletion.status, afterDeletion.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    expect(await afterDeletion.json()).toEqual(created);
    expect(await h().sql.query("SELECT id FROM assets WHERE tenant_id = $1", [tid])).toEqual([]);
  });

  it("POST with a used Idempotency-Key and another body: 422 idempotency_key_reused, nothing created; keys are per tenant", async () => {
    const tid = freshId("idem");
    const post = (as: { tid: string }, body: unknown) =>
      h().request("/v1/assets", { method: "POST", as, body, headers: { "idempotency-key": "k" } });
    expect((await post({ tid }, { name: "Chair", material: "oak" })).status).toBe(201);
    await expectProblem(await post({ tid }, { name: "Table", material: "oak" }), 422, "idempotency_key_reused");
    const other = await post({ tid: `${tid}-b` }, { name: "Table", material: "oak" });
    expect(other.status).toBe(201);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    const rows = await h().sql.query("SELECT name FROM assets WHERE tenant_id = $1", [tid]);
    expect(rows).toEqual([{ name: "Chair" }]);
  });

  it("POST with an unusable Idempotency-Key: 400 malformed_request, nothing created", async () => {
    const tid = freshId("idem");
    const response = await h().request("/v1/assets", {
      method: "POST",
      as: { tid },
      body: { name: "Chair", material: "oak" },
      headers: { "idempotency-key": "has space" },
    });
    await expectProblem(response, 400, "malformed_request");
    expect(await h().sql.query("SELECT 1 FROM assets WHERE tenant_id = $1", [tid])).toEqual([]);
  });

  it("POST refuses bad bodies: 422 (fields listed), 415, 400, 401", async () => {
    const post = (body: unknown, headers?: Record<string, string>, as?: null) =>
      h().request("/v1/assets", { method: "POST", body, headers, ...(as === null ? { as } : {}) });
    const missing = await expectProblem(await post({ name: "x" }), 422, "validation_failed");
    expect(missing.errors).toEqual([expect.objectContaining({ field: "material" })]);
    await expectProblem(await post({ name: "x", material: "y", status: "approved" }), 422, "validation_failed");
    await expectProblem(await post({ name: "x".repeat(201), material: "y" }), 422, "validation_failed");
    await expectProblem(await post({ name: "   ", material: "y" }), 422, "validation_failed");
    await expectProblem(await post("name=x", { "content-type": "text/plain" }), 415, "unsupported_media_type");
    await expectProblem(await post("{nope", { "content-type": "application/json" }), 400, "malformed_request");
    await expectProblem(await post({ name: "x", material: "y" }, {}, null), 401, "unauthorized");
  });

  it("name and material keep control characters as sent, line breaks included; NUL and lone surrogates: 422", async () => {
    const fields = { name: "Row 1\nRow 2\u0001", material: "oak\tpine" };
    const created = await h().request("/v1/assets", { method: "POST", body: fields });
    expect(created.status).toBe(201);
    expect(await getAsset(h(), (await created.json()).id)).toMatchObject({ body: fields });
    for (const refused of ["a\u0000b", "a\ud800b"]) {
      const nameRefused = await h().request("/v1/assets", { method: "POST", body: { name: refused, material: "oak" } });
      const problem = await expectProblem(nameRefused, 422, "validation_failed");
      // Worded as the documents' and links' text fields are: "lone", not "unpaired".
      expect(problem.errors).toEqual([{ field: "name", message: "must not contain NUL or lone surrogates" }]);
      const materialRefused = await h().request("/v1/assets", {
        method: "POST",
        body: { name: "Chair", material: refused },
      });
      await expectProblem(materialRefused, 422, "validation_failed");
    }
  });

  it("PUT with If-None-Match: * creates with the given id; again: 412", async () => {
    const id = freshId();
    const put = () =>
      h().request(`/v1/assets/${id}`, {
        method: "PUT",
        body: { name: "Lamp", material: "brass" },
        headers: { "if-none-match": "*" },
      });
    const first = await put();
    expect(first.status).toBe(201);
    expect(first.headers.get("location")).toBe(`/v1/assets/${id}`);
    expect(first.headers.get("etag")).toMatch(STRONG_ETAG);
    expect(await first.json()).toMatchObject({ id, name: "Lamp", material: "brass", status: "draft" });
    const again = await expectProblem(await put(), 412, "precondition_failed");
    // As the other 412s of a write: what held, that nothing changed, and the request that would.
    expect(again.detail).toBe(
      "An asset with this id already exists, and If-None-Match: * creates only one that does not; nothing was changed. To replace it, send If-Match with its ETag.",
    );
  });

  it("PUT-create takes an id of 1-128 of A-Z a-z 0-9 . _ ~ -, and refuses any other: 422", async () => {
    const putCreate = (id: string) =>
      h().request(`/v1/assets/${id}`, {
        method: "PUT",
        body: { name: "x", material: "y" },
        headers: { "if-none-match": "*" },
      });
    const longest = `${freshId()}.a_b~c-`.padEnd(128, "z");
    expect((await putCreate(longest)).status).toBe(201);
    for (const refused of ["bad%20id", `${longest}z`]) {
      const problem = await expectProblem(await putCreate(refused), 422, "validation_failed");
      expect(problem.errors).toEqual([expect.objectContaining({ field: "id" })]);
    }
  });

  it("ids are per tenant: another tenant creates the same id independently and never sees ours", async () => {
    const ours = await createAsset(h(), { name: "Ours", material: "oak" });
    const theirs = await createAsset(h(), { name: "Theirs", material: "pine" }, OTHER_TENANT, ours.id);
    expect(theirs.etag).not.toBe(ours.etag);
    expect((await getAsset(h(), ours.id)).body.name).toBe("Ours");
    expect((await getAsset(h(), ours.id, OTHER_TENANT)).body.name).toBe("Theirs");
  });

  it("GET: 404 for an absent id, an impossible id, and another tenant's asset", async () => {
    const { id } = await createAsset(h());
    for (const [path, as] of [
      [`/v1/assets/${freshId()}`, {}],
      ["/v1/assets/%20", {}],
      [`/v1/assets/${id}`, OTHER_TENANT],
    ] as const) {
      await expectProblem(await h().request(path, { as }), 404, "not_found");
    }
  });

  it("GET with If-None-Match: 304 (with ETag, no body) on a weak or strong match, a list, or *", async () => {
    const { id, etag } = await createAsset(h());
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const response = await h().request(`/v1/assets/${id}`, { headers: { "if-none-match": ifNoneMatch } });
      expect(response.status, ifNoneMatch).toBe(304);
      expect(response.headers.get("etag")).toBe(etag);
      expect(await response.text()).toBe("");
    }
    const changed = await h().request(`/v1/assets/${id}`, { headers: { "if-none-match": '"other"' } });
    expect(changed.status).toBe(200);
    await expectProblem(
      await h().request(`/v1/assets/${id}`, { headers: { "if-none-match": "garbage" } }),
      400,
      "malformed_request",
    );
  });

  it("GET with If-Match that does not match: 412", async () => {
    const { id, etag } = await createAsset(h());
    await expectProblem(
      await h().request(`/v1/assets/${id}`, { headers: { "if-match": '"other"' } }),
      412,
      "precondition_failed",
    );
    expect((await h().request(`/v1/assets/${id}`, { headers: { "if-match": etag } })).status).toBe(200);
  });

  it("ETags are opaque: random per version, unrelated to how often the asset changed", async () => {
    const { id, etag } = await createAsset(h());
    const seen = [etag];
    for (let i = 0; i < 5; i++) {
      const response = await patchAsset(h(), id, seen.at(-1)!, { name: `v${i}` });
      expect(response.status).toBe(200);
      seen.push(response.headers.get("etag")!);
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const tag of seen) expect(tag).toMatch(STRONG_ETAG);
    expect(seen.join(" ")).not.toMatch(/"0*[1-6]"/);
  });

  it("unknown methods on asset paths: 405 with Allow", async () => {
    const response = await h().request("/v1/assets", { method: "DELETE" });
    await expectProblem(response, 405, "method_not_allowed");
    expect(response.headers.get("allow")).toBe("POST");
  });
});
