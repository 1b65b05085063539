// Lookups through the whole app: from KV or Postgres, the strong read, who sees what, and what a
// refused lookup leaves in the cache.
import { beforeEach, expect, it } from "vitest";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { admin, linkRouteCalls, service } from "../../test/links/link-routes.ts";
import { cachedEntry, linkPath } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import { linkKey } from "./kv-keys.ts";
import type { Link } from "./link.ts";

describeOnBackends("links API: lookups", (harness) => {
  const { fresh, freshUsers, put, get } = linkRouteCalls(harness);
  let alice: TokenClaims;
  let bob: TokenClaims;
  beforeEach(() => void ({ alice, bob } = freshUsers()));

  it("serves lookups from KV when cached, else from Postgres, writing back", async () => {
    const id = fresh("lookup");
    const link = (await (await put(linkPath("github", id), alice)).json()) as Link;
    const cached = await get(linkPath("GitHub", id), alice);
    expect(cached.headers.get("x-link-source")).toBe("kv");
    expect(await cached.json()).toEqual(link);

    await harness().kv.delete(await linkKey("acme", link));
    const fromDb = await get(linkPath("github", id), alice);
    expect(fromDb.headers.get("x-link-source")).toBe("db");
    expect(await fromDb.json()).toEqual(link);
    expect((await cachedEntry(harness().kv, link))?.link).toEqual(link);
    expect((await get(linkPath("github", id), alice)).headers.get("x-link-source")).toBe("kv");
  });

  it("skips the KV entirely with ?consistency=strong", async () => {
    const id = fresh("strong");
    const link = (await (await put(linkPath("github", id), alice)).json()) as Link;
    const strong = await get(`${linkPath("github", id)}?consistency=strong`, alice);
    expect(strong.status).toBe(200);
    expect(strong.headers.get("x-link-source")).toBe("db");
    expect(await strong.json()).toEqual(link);

    await harness().kv.delete(await linkKey("acme", link));
    await get(`${linkPath("github", id)}?consistency=strong`, alice);
    expect(await cachedEntry(harness().kv, link)).toBeUndefined(); // no write-back either
    expect((await get(`${linkPath("github", id)}?consistency=eventual`, alice)).headers.get("x-link-source")).toBe(
      "db",
    );
    await expectProblem(await get(`${linkPath("github", id)}?consistency=always`, alice), 422, "validation_failed");
  });

  it("shows a user only their own links; service and admin tokens see any", async () => {
    const id = fresh("private");
    const link = (await (await put(linkPath("github", id), alice)).json()) as Link;
    const absent = linkPath("github", fresh("nobody"));

    for (const as of [alice, service, admin]) {
      const response = await get(linkPath("github", id), as);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(link);
    }
    // Cached or not, someone else's link answers exactly like one that does not exist.
    const strangers = [
      await get(linkPath("github", id), bob),
      await get(`${linkPath("github", id)}?consistency=strong`, bob),
      await get(absent, bob),
    ];
    const bodies = [];
    for (const response of strangers) {
      expect(response.headers.get("x-link-source")).toBeNull();
      bodies.push(await expectProblem(response, 404, "not_found"));
    }
    expect(bodies[0]).toEqual(bodies[2]);
    expect(bodies[1]).toEqual(bodies[2]);
  });

  it("writes no cache entry for a lookup it refuses", async () => {
    const target = { provider: "github", externalAccountId: fresh("uncached") };
    await put(linkPath(target.provider, target.externalAccountId), alice);
    await harness().kv.delete(await linkKey("acme", target));
    await expectProblem(await get(linkPath(target.provider, target.externalAccountId), bob), 404, "not_found");
    // The owner's, refused by its condition (412): no copy either; and a PUT refused by one writes none.
    const path = linkPath(target.provider, target.externalAccountId);
    await expectProblem(await harness().request(path, { as: alice, headers: { "if-match": '"x"' } }), 412);
    await expectProblem(
      await harness().request(path, { method: "PUT", as: alice, headers: { "if-none-match": "*" } }),
      412,
    );
    expect(await cachedEntry(harness().kv, target)).toBeUndefined();
  });
});
