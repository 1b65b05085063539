// The 412 recovery helper against the real API with a concurrent writer interleaved.
import { expect, it } from "vitest";
import type { AssetRepresentation } from "../../core/assets/model.ts";
import { signToken } from "../../dev/support/tokens.ts";
import { AssetUpdateError, type FetchLike, updateAssetOverHttp } from "../support/asset-client.ts";
import { describeOnBackends } from "../support/harness.ts";
import { createAsset, getAsset, patchAsset } from "./helpers.ts";

const BASE_URL = "http://api.test";

interface Exchange {
  method: string;
  ifMatch: string | null;
  status: number;
  etag: string | null;
}

describeOnBackends("assets client: updateAssetOverHttp", (h) => {
  /** The app as a fetch function, recording every exchange. */
  const recordingFetch = () => {
    const log: Exchange[] = [];
    const fetchFn: FetchLike = async (request) => {
      const response = await h().app.fetch(request);
      log.push({
        method: request.method,
        ifMatch: request.headers.get("if-match"),
        status: response.status,
        etag: response.headers.get("etag"),
      });
      return response;
    };
    return { fetchFn, log };
  };

  /** Each PATCH names the version of the GET right before it: never an old body with a fresh ETag. */
  const expectEveryWriteConditionedOnItsRead = (log: Exchange[]) => {
    log.forEach((exchange, i) => {
      if (exchange.method !== "PATCH") return;
      expect(log[i - 1]).toMatchObject({ method: "GET", status: 200, etag: exchange.ifMatch });
    });
  };

  it("one round when nobody interferes", async () => {
    const { id } = await createAsset(h());
    const { fetchFn, log } = recordingFetch();
    const seen: AssetRepresentation[] = [];
    const result = await updateAssetOverHttp(
      fetchFn,
      BASE_URL,
      id,
      (latest) => (seen.push(latest), { name: `${latest.name} (renamed)` }),
      {
        token: await signToken(),
      },
    );
    expect(result).toMatchObject({ attempts: 1, asset: { name: "Chair (renamed)", material: "oak" } });
    expect(seen).toHaveLength(1);
    expect((await getAsset(h(), id)).etag).toBe(result.etag);
    expect(log.map((e) => `${e.method} ${e.status}`)).toEqual(["GET 200", "PATCH 200"]);
  });

  it("after a 412 it merges into the concurrent writer's version: both changes survive", async () => {
    const { id } = await createAsset(h());
    const { fetchFn, log } = recordingFetch();
    const seen: AssetRepresentation[] = [];
    const result = await updateAssetOverHttp(
      fetchFn,
      BASE_URL,
      id,
      async (latest) => {
        seen.push(latest);
        if (seen.length === 1) {
          // B changes the material between A's read and A's write.
          const b = await getAsset(h(), id);
          expect((await patchAsset(h(), id, b.etag, { material: "steel" })).status).toBe(200);
        }
        return { name: "Chair by A" };
      },
      { token: await signToken() },
    );
    expect(result.attempts).toBe(2);
    expect(seen.map((s) => s.material)).toEqual(["oak", "steel"]);
    expect((await getAsset(h(), id)).body).toMatchObject({ name: "Chair by A", material: "steel" });
    expect(log.map((e) => `${e.method} ${e.status}`)).toEqual(["GET 200", "PATCH 412", "GET 200", "PATCH 200"]);
    expectEveryWriteConditionedOnItsRead(log);
  });

  it("gives up after maxAttempts with a 412 error, having written nothing", async () => {
    const { id } = await createAsset(h());
    const { fetchFn, log } = recordingFetch();
    let rounds = 0;
    const attempt = updateAssetOverHttp(
      fetchFn,
      BASE_URL,
      id,
      async () => {
        rounds++;
        const b = await getAsset(h(), id);
        await patchAsset(h(), id, b.etag, { material: `steel ${rounds}` });
        return { name: "never" };
      },
      { token: await signToken(), maxAttempts: 3 },
    );
    await expect(attempt).rejects.toMatchObject({ name: "AssetUpdateError", status: 412 });
    expect(rounds).toBe(3);
    expect((await getAsset(h(), id)).body).toMatchObject({ name: "Chair", material: "steel 3" });
    expectEveryWriteConditionedOnItsRead(log);
  });

  it("does not retry what merging cannot fix: 409 approved, 404 absent", async () => {
    const { id, etag } = await createAsset(h());
    await h().request(`/v1/assets/${id}/approve`, { method: "POST", headers: { "if-match": etag } });
    let calls = 0;
    const merge = () => (calls++, { name: "x" });
    const token = await signToken();
    const locked = updateAssetOverHttp(recordingFetch().fetchFn, BASE_URL, id, merge, { token });
    await expect(locked).rejects.toBeInstanceOf(AssetUpdateError);
    await expect(locked).rejects.toMatchObject({ status: 409, problem: { code: "asset_locked" } });
    expect(calls).toBe(1);
    await expect(
      updateAssetOverHttp(recordingFetch().fetchFn, BASE_URL, "missing", merge, { token }),
    ).rejects.toMatchObject({ status: 404 });
    expect(calls).toBe(1);
  });

  it("writes nothing when the merge says nothing is to change", async () => {
    const { id, etag } = await createAsset(h());
    const { fetchFn, log } = recordingFetch();
    const result = await updateAssetOverHttp(
      fetchFn,
      BASE_URL,
      id,
      (latest) => (latest.material === "oak" ? null : { material: "oak" }),
      {
        token: await signToken(),
      },
    );
    expect(result).toMatchObject({ attempts: 1, etag });
    expect(log.map((e) => e.method)).toEqual(["GET"]);
  });

  it("writes nothing when the merge changes nothing: no field, or only the values the asset holds", async () => {
    const { id, etag } = await createAsset(h());
    const token = await signToken();
    for (const change of [{}, { material: "oak" }, { name: "Chair", material: "oak" }]) {
      const { fetchFn, log } = recordingFetch();
      const result = await updateAssetOverHttp(fetchFn, BASE_URL, id, () => change, { token });
      expect(result).toMatchObject({ attempts: 1, etag, asset: { name: "Chair", material: "oak" } });
      expect(log.map((e) => e.method)).toEqual(["GET"]);
    }
    expect((await getAsset(h(), id)).etag).toBe(etag);
  });
});
