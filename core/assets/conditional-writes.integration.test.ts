// Every status of the Assets contract's conditional writes (PATCH, PUT, approve, DELETE under
// If-Match), on PGlite and on the real PostgreSQL, through the production path (app → Neon client
// → local endpoint → database).
import { expect, it } from "vitest";
import { createAsset, freshId, getAsset, OTHER_TENANT, patchAsset, STRONG_ETAG } from "../../test/assets/helpers.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";

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

  it("PATCH with null for a field (a merge patch's removal): 422 saying the field cannot be removed, nothing changed", async () => {
    const { id, etag } = await createAsset(h());
    const problem = await expectProblem(
      await patchAsset(h(), id, etag, { name: "Stool", material: null }),
      422,
      "validation_failed",
    );
    expect(problem.errors).toEqual([{ field: "material", message: "cannot be removed (null): every asset has one" }]);
    expect((await getAsset(h(), id)).etag).toBe(etag);
  });

  it("the representation's own members in a body: 422 saying they are the server's, nothing changed", async () => {
    const { id, etag } = await createAsset(h());
    const read = (await getAsset(h(), id)).body;
    const sentBack = await h().request(`/v1/assets/${id}`, {
      method: "PUT",
      body: { ...read, name: "Stool" },
      headers: { "if-match": etag },
    });
    const problem = await expectProblem(sentBack, 422, "validation_failed");
    expect(problem.errors).toEqual([{ field: "id", message: "is the server's: send name and material only" }]);
    const approving = await expectProblem(await patchAsset(h(), id, etag, { status: "approved" }), 422);
    expect(approving.errors).toEqual([
      { field: "status", message: "is the server's: approve with POST /v1/assets/{id}/approve" },
    ]);
    const inherited = await patchAsset(h(), id, etag, JSON.parse('{"constructor": "x"}'));
    expect((await expectProblem(inherited, 422)).errors).toEqual([
      { field: "constructor", message: "is not a field of this request" },
    ]);
    expect((await getAsset(h(), id)).etag).toBe(etag);
  });

  it("a write whose If-Match lists only weak ETags (as a compressing proxy hands them on): 412 saying why", async () => {
    const { id, etag } = await createAsset(h());
    const weak = `W/${etag}`;
    const writes = [
      await patchAsset(h(), id, weak, { name: "Stool" }),
      await h().request(`/v1/assets/${id}/approve`, { method: "POST", headers: { "if-match": weak } }),
      await h().request(`/v1/assets/${id}`, { method: "DELETE", headers: { "if-match": `W/"other", ${weak}` } }),
    ];
    for (const write of writes) {
      const problem = await expectProblem(write, 412, "precondition_failed");
      expect(problem.detail).toMatch(/^If-Match names only weak ETags \(W\/\), which never match a write/);
    }
    const stale = await expectProblem(await patchAsset(h(), id, '"stale"', { name: "Stool" }), 412);
    expect(stale.detail).toMatch(/^The asset is not at the version If-Match names/);
    expect((await getAsset(h(), id)).etag).toBe(etag);
  });

  it("a JSON array as the body of PATCH, PUT or POST: 422 saying it must be an object, nothing changed", async () => {
    const { id, etag } = await createAsset(h());
    const answers = [
      await patchAsset(h(), id, etag, []),
      await h().request(`/v1/assets/${id}`, { method: "PUT", body: [], headers: { "if-match": etag } }),
      await h().request("/v1/assets", { method: "POST", body: ["Chair", "oak"] }),
    ];
    for (const answer of answers) {
      const problem = await expectProblem(answer, 422, "validation_failed");
      expect(problem.errors).toEqual([{ field: "", message: "must be a JSON object" }]);
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
