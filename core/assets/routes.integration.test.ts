// Every status of the Assets contract, on PGlite and on the real PostgreSQL, through the
// production path (app → Neon client → local endpoint → database).
import { expect, it } from "vitest";
import { createAsset, freshId, getAsset, OTHER_TENANT, patchAsset } from "../../test/assets/helpers.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";

const STRONG_ETAG = /^"[0-9a-f]{32}"$/;

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

  it("POST with an Idempotency-Key: a retry answers the first 201 again and creates nothing, even after a change", async () => {
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
    await expectProblem(await put(), 412, "precondition_failed");
  });

  it("PUT-create refuses an id that could never exist: 422", async () => {
    const response = await h().request("/v1/assets/bad%20id", {
      method: "PUT",
      body: { name: "x", material: "y" },
      headers: { "if-none-match": "*" },
    });
    const problem = await expectProblem(response, 422, "validation_failed");
    expect(problem.errors).toEqual([expect.objectContaining({ field: "id" })]);
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

describeOnBackends("assets: conditional writes", (h) => {
  it("PATCH with the current ETag: 200, the change, a new ETag; a list or * match too", async () => {
    const { id, etag } = await createAsset(h());
    const first = await patchAsset(h(), id, etag, { name: "Stool" });
    expect(first.status).toBe(200);
    const next = first.headers.get("etag")!;
    expect(next).toMatch(STRONG_ETAG);
    expect(next).not.toBe(etag);
    expect(await first.json()).toMatchObject({ id, name: "Stool", material: "oak", status: "draft" });

    const listed = await patchAsset(h(), id, `"stale", W/"x", ${next}`, { material: "pine" });
    expect(listed.status).toBe(200);
    const star = await patchAsset(h(), id, "*", { name: "Bench" });
    expect(star.status).toBe(200);
    expect((await getAsset(h(), id)).body).toMatchObject({ name: "Bench", material: "pine" });
  });

  it("PATCH accepts application/merge-patch+json and refuses other media types", async () => {
    const { id, etag } = await createAsset(h());
    const merge = await h().request(`/v1/assets/${id}`, {
      method: "PATCH",
      body: JSON.stringify({ material: "walnut" }),
      headers: { "if-match": etag, "content-type": "application/merge-patch+json" },
    });
    expect(merge.status).toBe(200);
    const plain = await h().request(`/v1/assets/${id}`, {
      method: "PATCH",
      body: "material=walnut",
      headers: { "if-match": merge.headers.get("etag")!, "content-type": "text/plain" },
    });
    await expectProblem(plain, 415, "unsupported_media_type");
  });

  it("PATCH without If-Match: 428; unparseable: 400; weak or stale: 412 - nothing changed", async () => {
    const { id, etag } = await createAsset(h());
    await expectProblem(await patchAsset(h(), id, null, { name: "x" }), 428, "precondition_required");
    await expectProblem(await patchAsset(h(), id, etag.slice(1, -1), { name: "x" }), 400, "malformed_request");
    await expectProblem(await patchAsset(h(), id, `W/${etag}`, { name: "x" }), 412, "precondition_failed");
    await expectProblem(
      await patchAsset(h(), id, '"0123456789abcdef0123456789abcdef"', { name: "x" }),
      412,
      "precondition_failed",
    );
    expect(await getAsset(h(), id)).toMatchObject({ etag, body: { name: "Chair", material: "oak" } });
  });

  it("PATCH bodies: unknown field, null, empty patch → 422, nothing changed", async () => {
    const { id, etag } = await createAsset(h());
    for (const body of [{ name: "x", colour: "red" }, { name: null }, {}, { status: "approved" }]) {
      await expectProblem(await patchAsset(h(), id, etag, body), 422, "validation_failed");
    }
    expect((await getAsset(h(), id)).etag).toBe(etag);
  });

  it("PATCH of an absent asset, an impossible id, or another tenant's asset: 404 - theirs unchanged", async () => {
    await expectProblem(await patchAsset(h(), freshId(), "*", { name: "x" }), 404, "not_found");
    await expectProblem(await patchAsset(h(), "no%20such", "*", { name: "x" }), 404, "not_found");
    const theirs = await createAsset(h(), { name: "Theirs", material: "pine" }, OTHER_TENANT);
    await expectProblem(await patchAsset(h(), theirs.id, theirs.etag, { name: "hijacked" }), 404, "not_found");
    await expectProblem(await patchAsset(h(), theirs.id, "*", { name: "hijacked" }), 404, "not_found");
    expect(await getAsset(h(), theirs.id, OTHER_TENANT)).toMatchObject({ etag: theirs.etag, body: { name: "Theirs" } });
  });

  it("PUT with If-Match replaces name and material; stale: 412; absent: 404; neither header: 428", async () => {
    const { id, etag } = await createAsset(h());
    const put = (ifMatch: Record<string, string>, body: unknown = { name: "Desk", material: "steel" }, path = id) =>
      h().request(`/v1/assets/${path}`, { method: "PUT", body, headers: ifMatch });
    await expectProblem(await put({}), 428, "precondition_required");
    await expectProblem(await put({ "if-none-match": etag }), 428, "precondition_required");
    await expectProblem(await put({ "if-match": etag, "if-none-match": "*" }), 400, "malformed_request");
    await expectProblem(await put({ "if-match": etag }, { name: "Desk" }), 422, "validation_failed");
    await expectProblem(await put({ "if-match": '"stale"' }), 412, "precondition_failed");
    await expectProblem(await put({ "if-match": "*" }, undefined, freshId()), 404, "not_found");
    await expectProblem(await put({ "if-match": "*" }, undefined, "bad%20id"), 404, "not_found");
    // The precondition is judged before the id: without one, an impossible id is still a 428.
    await expectProblem(await put({}, undefined, "bad%20id"), 428, "precondition_required");
    expect((await getAsset(h(), id)).etag).toBe(etag);

    const replaced = await put({ "if-match": etag });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ id, name: "Desk", material: "steel", status: "draft" });
    expect(replaced.headers.get("etag")).not.toBe(etag);
  });

  it("approve: 200 approved with a new ETag; later edits 409, stale ones 412", async () => {
    const { id, etag } = await createAsset(h());
    const approve = (ifMatch: string | null) =>
      h().request(`/v1/assets/${id}/approve`, {
        method: "POST",
        headers: ifMatch === null ? {} : { "if-match": ifMatch },
      });
    await expectProblem(await approve(null), 428, "precondition_required");
    await expectProblem(await approve('"stale"'), 412, "precondition_failed");
    const approved = await approve(etag);
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ id, status: "approved" });
    const current = approved.headers.get("etag")!;
    expect(current).not.toBe(etag);

    await expectProblem(await patchAsset(h(), id, current, { name: "x" }), 409, "asset_locked");
    await expectProblem(await patchAsset(h(), id, "*", { name: "x" }), 409, "asset_locked");
    await expectProblem(await patchAsset(h(), id, etag, { name: "x" }), 412, "precondition_failed"); // preconditions first
    await expectProblem(await approve(current), 409, "asset_locked");
    const replace = await h().request(`/v1/assets/${id}`, {
      method: "PUT",
      body: { name: "x", material: "y" },
      headers: { "if-match": current },
    });
    await expectProblem(replace, 409, "asset_locked");
    expect(await getAsset(h(), id)).toMatchObject({ etag: current, body: { name: "Chair", status: "approved" } });
  });

  it("approve of another tenant's asset: 404", async () => {
    const theirs = await createAsset(h(), undefined, OTHER_TENANT);
    const response = await h().request(`/v1/assets/${theirs.id}/approve`, {
      method: "POST",
      headers: { "if-match": theirs.etag },
    });
    await expectProblem(response, 404, "not_found");
    expect((await getAsset(h(), theirs.id, OTHER_TENANT)).body.status).toBe("draft");
  });

  it("DELETE: 428 without If-Match, 412 stale, 204 current, then 404", async () => {
    const { id, etag } = await createAsset(h());
    const del = (headers: Record<string, string>, path = id, as = {}) =>
      h().request(`/v1/assets/${path}`, { method: "DELETE", headers, as });
    await expectProblem(await del({}), 428, "precondition_required");
    await expectProblem(await del({ "if-match": '"stale"' }), 412, "precondition_failed");
    await expectProblem(await del({ "if-match": etag }, id, OTHER_TENANT), 404, "not_found");
    expect((await getAsset(h(), id)).status).toBe(200);
    const deleted = await del({ "if-match": etag });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect((await getAsset(h(), id)).status).toBe(404);
    await expectProblem(await del({ "if-match": "*" }), 404, "not_found");
  });

  it("DELETE of an approved asset: 409 asset_locked, it stays", async () => {
    const { id, etag } = await createAsset(h());
    const approved = await h().request(`/v1/assets/${id}/approve`, { method: "POST", headers: { "if-match": etag } });
    const current = approved.headers.get("etag")!;
    await expectProblem(
      await h().request(`/v1/assets/${id}`, { method: "DELETE", headers: { "if-match": current } }),
      409,
      "asset_locked",
    );
    expect((await getAsset(h(), id)).status).toBe(200);
  });
});
