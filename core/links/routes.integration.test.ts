import { beforeEach, expect, it } from "vitest";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { cachedEntry, cacheKeys, linkPath, linkRows } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import { linkKey } from "./kv-keys.ts";
import type { Link } from "./link.ts";

const service: TokenClaims = { sub: "billing", role: "service" };
const admin: TokenClaims = { sub: "root", role: "admin" };

describeOnBackends("links API", (harness) => {
  let counter = 0;
  /** A fresh external account id per test: the suite shares one database. */
  const fresh = (label: string) => `${label}-${++counter}`;
  // Fresh users too: a user holds one account per provider, so tests must not share them.
  let alice: TokenClaims;
  let bob: TokenClaims;
  beforeEach(() => {
    alice = { sub: fresh("alice") };
    bob = { sub: fresh("bob") };
  });

  const put = (path: string, as: TokenClaims, body?: unknown) => harness().request(path, { method: "PUT", as, body });
  const get = (path: string, as: TokenClaims) => harness().request(path, { as });
  const del = (path: string, as: TokenClaims) => harness().request(path, { method: "DELETE", as });

  it("one trailing slash names the same link, as docs/API.md says of every path", async () => {
    const id = fresh("slash");
    const created = await put(`/v1/links/github/${id}/`, alice);
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`/v1/links/github/${id}`);
    expect((await get(`/v1/links/github/${id}/`, alice)).status).toBe(200);
    expect((await get(`/v1/links/github/${id}`, alice)).status).toBe(200);
    expect((await del(`/v1/links/github/${id}/`, alice)).status).toBe(204);
    expect(await linkRows(harness().sql, { provider: "github", externalAccountId: id })).toEqual([]);
  });

  it("links an account: 201, Location, the link, one normalized row, a KV entry", async () => {
    const id = fresh("acc");
    const response = await put(linkPath(" GitHub ", ` ${id}\t`), alice, { displayName: "Octo Cat" });
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe(`/v1/links/github/${id}`);
    const link = (await response.json()) as Link;
    expect(link).toEqual({
      provider: "github",
      externalAccountId: id,
      userId: alice.sub,
      displayName: "Octo Cat",
      linkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await linkRows(harness().sql, link)).toEqual([
      { provider: "github", external_account_id: id, user_id: alice.sub, display_name: "Octo Cat" },
    ]);
    expect((await cachedEntry(harness().kv, link))?.link).toEqual(link);
  });

  it("answers 200 with the same link when its owner links it again, in any spelling", async () => {
    const id = fresh("again");
    const first = (await (await put(linkPath("github", id), alice, { displayName: "Octo" })).json()) as Link;
    for (const provider of ["GITHUB", "gitHub", " github"]) {
      const again = await put(linkPath(provider, `  ${id} `), alice);
      expect(again.status).toBe(200);
      expect(again.headers.get("location")).toBeNull();
      expect(await again.json()).toEqual(first); // no body: the display name stays
    }
    const renamed = await put(linkPath("github", id), alice, { displayName: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ ...first, displayName: "Renamed" });
    expect((await (await put(linkPath("github", id), alice, { displayName: null })).json()) as Link).toEqual({
      ...first,
      displayName: null,
    });
    expect(await linkRows(harness().sql, first)).toHaveLength(1);
  });

  it("refuses an account linked to another user: 409 external_account_already_linked, nothing changes", async () => {
    const id = fresh("taken");
    const link = (await (await put(linkPath("github", id), alice)).json()) as Link;
    const problem = await expectProblem(
      await put(linkPath("GitHub", id), bob, { displayName: "Mine!" }),
      409,
      "external_account_already_linked",
    );
    expect(JSON.stringify(problem)).not.toContain(alice.sub!); // the owner is not disclosed
    expect(await linkRows(harness().sql, link)).toEqual([
      { provider: "github", external_account_id: id, user_id: alice.sub, display_name: null },
    ]);
    expect((await cachedEntry(harness().kv, link))?.link.userId).toBe(alice.sub);
  });

  it("refuses a second account of one provider: 409 provider_already_linked", async () => {
    const user = { sub: fresh("collector") };
    expect((await put(linkPath("gitlab", fresh("first")), user)).status).toBe(201);
    const second = fresh("second");
    await expectProblem(await put(linkPath("GitLab", second), user), 409, "provider_already_linked");
    expect(await linkRows(harness().sql, { provider: "gitlab", externalAccountId: second })).toEqual([]);
    expect((await put(linkPath("bitbucket", second), user)).status).toBe(201);
  });

  it("names the owner conflict first when both indexes would refuse", async () => {
    const carol = { sub: fresh("carol") };
    expect((await put(linkPath("github", fresh("carols")), carol)).status).toBe(201);
    const bobs = fresh("bobs");
    expect((await put(linkPath("github", bobs), { sub: fresh("bob") })).status).toBe(201);
    await expectProblem(await put(linkPath("github", bobs), carol), 409, "external_account_already_linked");
  });

  it("accepts an id with reserved characters and finds it again through its Location", async () => {
    const id = `a/b?c#d %e ${fresh("ü")}`;
    const created = await put(linkPath("github", id), alice);
    expect(created.status).toBe(201);
    const location = created.headers.get("location")!;
    const found = await get(location, alice);
    expect(found.status).toBe(200);
    expect(((await found.json()) as Link).externalAccountId).toBe(id);
  });

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

  it("answers unknown methods on link paths with 405 and Allow, writing nothing", async () => {
    const path = linkPath("github", fresh("method"));
    const cases = [
      [path, "POST", "GET, HEAD, PUT, DELETE"],
      ["/v1/me/links", "DELETE", "GET, HEAD"],
      ["/v1/admin/links/resync", "GET", "POST"],
    ] as const;
    for (const [target, method, allow] of cases) {
      const response = await harness().request(target, { method, as: admin });
      await expectProblem(response, 405, "method_not_allowed");
      expect(response.headers.get("allow")).toBe(allow);
    }
    expect(await linkRows(harness().sql, { provider: "github", externalAccountId: path.split("/").at(-1)! })).toEqual(
      [],
    );
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

  it("lets only the owner unlink: 204, row and KV entry gone; others 404", async () => {
    const id = fresh("unlink");
    const link = (await (await put(linkPath("github", id), alice)).json()) as Link;
    for (const as of [bob, service, admin])
      await expectProblem(await del(linkPath("github", id), as), 404, "not_found");
    expect(await linkRows(harness().sql, link)).toHaveLength(1);

    const unlinked = await del(linkPath("GitHub", ` ${id}`), alice);
    expect(unlinked.status).toBe(204);
    expect(await unlinked.text()).toBe("");
    expect(await linkRows(harness().sql, link)).toEqual([]);
    expect(await cachedEntry(harness().kv, link)).toBeUndefined();
    await expectProblem(await get(linkPath("github", id), service), 404, "not_found");
    await expectProblem(await del(linkPath("github", id), alice), 404, "not_found");
    // Free again: anyone may link it now.
    expect((await put(linkPath("github", id), bob)).status).toBe(201);
  });

  it("lists the caller's links, and only theirs, at GET /v1/me/links", async () => {
    const dana = { sub: fresh("dana") };
    const links: Link[] = [];
    for (const provider of ["twitch", "discord"]) {
      links.push((await (await put(linkPath(provider, fresh("d")), dana)).json()) as Link);
    }
    await put(linkPath("discord", fresh("e")), { sub: fresh("erin") });
    const response = await get("/v1/me/links", dana);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ items: [links[1], links[0]], next: null }); // by provider
    expect(await (await get("/v1/me/links", { sub: fresh("nobody") })).json()).toEqual({ items: [], next: null });
  });

  it("pages GET /v1/me/links by provider: limit ≤ 100, 20 by default, next until the last page", async () => {
    const erin = { sub: fresh("erin") };
    const providers = Array.from({ length: 23 }, (_, index) => `p${String(index).padStart(2, "0")}`);
    for (const provider of providers) expect((await put(linkPath(provider, fresh("e")), erin)).status).toBe(201);

    const first = await (await get("/v1/me/links", erin)).json();
    expect(first.items.map((link: Link) => link.provider)).toEqual(providers.slice(0, 20));
    expect(first.next).toBe("p19");
    const pages = [];
    for (let query = "limit=10"; ; ) {
      const page = await (await get(`/v1/me/links?${query}`, erin)).json();
      pages.push(page.items.map((link: Link) => link.provider));
      if (page.next === null) break;
      query = `limit=10&after=${page.next}`;
    }
    expect(pages).toEqual([providers.slice(0, 10), providers.slice(10, 20), providers.slice(20)]);
    const exact = await (await get("/v1/me/links?after=p12&limit=10", erin)).json();
    expect(exact.items.map((link: Link) => link.provider)).toEqual(providers.slice(13));
    expect(exact.next).toBeNull();
  });

  it("a full page of the largest links a user can hold stays far below Neon's 10 MB answer limit", async () => {
    const sub = "🦊".repeat(128);
    const displayName = "🦊".repeat(200);
    const providers = Array.from({ length: 100 }, (_, index) => `${"p".repeat(61)}${String(index).padStart(3, "0")}`);
    await Promise.all(
      providers.map(async (provider, index) => {
        const id = `${String(index).padStart(3, "0")}${"🦊".repeat(253)}`;
        expect((await put(linkPath(provider, id), { sub }, { displayName })).status).toBe(201);
      }),
    );
    const response = await get("/v1/me/links?limit=100", { sub });
    const bytes = (await response.arrayBuffer()).byteLength;
    expect(bytes).toBeGreaterThan(200_000);
    expect(bytes).toBeLessThan(300_000);
  });

  it.each(["limit=0", "limit=101", "limit=x", "after=", "after=GitHub", "after=-x", `after=${"a".repeat(65)}`])(
    "answers 422 for GET /v1/me/links?%s",
    async (query) => {
      await expectProblem(await get(`/v1/me/links?${query}`, alice), 422, "validation_failed");
    },
  );

  it("spends one database round trip per write or strong or refused lookup, two on a miss that writes back, none on a hit", async () => {
    const { endpoint } = harness().stack;
    const id = fresh("trips");
    const path = linkPath("github", id);
    const trips = async (run: () => Promise<Response>, status: number) => {
      endpoint.resetStatements();
      expect((await run()).status).toBe(status);
      return endpoint.statements();
    };
    expect(await trips(() => put(path, alice), 201)).toBe(1);
    expect(await trips(() => put(path, alice), 200)).toBe(1);
    expect(await trips(() => put(path, bob), 409)).toBe(1);
    // provider_already_linked is asked twice: the first refusal may be the twin-insert race
    // (core/links/link-race.test.ts).
    expect(await trips(() => put(linkPath("github", fresh("second")), alice), 409)).toBe(2);
    expect(await trips(() => get(path, alice), 200)).toBe(0);
    await harness().kv.delete(await linkKey("acme", { provider: "github", externalAccountId: id }));
    expect(await trips(() => get(path, alice), 200)).toBe(2); // the link's read, and the one confirming its copy
    expect(await trips(() => get(`${path}?consistency=strong`, alice), 200)).toBe(1);
    expect(await trips(() => del(path, alice), 204)).toBe(1);
    expect(await trips(() => get(path, alice), 404)).toBe(1);
    expect(await trips(() => put(linkPath("-bad", "1"), alice), 422)).toBe(0);
  });

  it("refuses every invalid request with a 4xx problem and writes nothing, anywhere", async () => {
    const rowsBefore = await linkRows(harness().sql);
    const keysBefore = await cacheKeys(harness().kv);
    const id = fresh("invalid");
    const attempts: [{ path: string; body?: unknown; headers?: Record<string, string> }, number][] = [
      [{ path: linkPath("-github", id) }, 422],
      [{ path: linkPath("git hub", id) }, 422],
      [{ path: linkPath("gít", id) }, 422],
      [{ path: linkPath("a".repeat(65), id) }, 422],
      [{ path: linkPath("github", "   ") }, 422],
      [{ path: linkPath("github", "x".repeat(257)) }, 422],
      [{ path: linkPath("github", "a\u0000b") }, 422],
      [{ path: linkPath("github", "a\nb") }, 422],
      [{ path: "/v1/links/github/%E0%A4%A" }, 400],
      [{ path: "/v1/links/github/%ED%A0%80" }, 400],
      [{ path: linkPath("github", id), body: { displayName: "x".repeat(201) } }, 422],
      [{ path: linkPath("github", id), body: { displayName: 42 } }, 422],
      [{ path: linkPath("github", id), body: { displayName: "a\u0000" } }, 422],
      [{ path: linkPath("github", id), body: { display_name: "typo" } }, 422],
      [{ path: linkPath("github", id), body: [] }, 422],
      [{ path: linkPath("github", id), body: "null", headers: { "content-type": "application/json" } }, 422],
      [{ path: linkPath("github", id), body: "{", headers: { "content-type": "application/json" } }, 400],
      [{ path: linkPath("github", id), body: '{"displayName":"x"}', headers: { "content-type": "text/plain" } }, 415],
      [{ path: linkPath("github", id), body: JSON.stringify({ displayName: "x".repeat(70_000) }) }, 413],
    ];
    for (const [{ path, body, headers }, status] of attempts) {
      const response = await harness().request(path, { method: "PUT", as: alice, body, headers });
      await expectProblem(response, status);
    }
    const noToken = await harness().request(linkPath("github", id), { method: "PUT", as: null });
    await expectProblem(noToken, 401, "unauthorized");
    expect(await linkRows(harness().sql)).toEqual(rowsBefore);
    expect(await cacheKeys(harness().kv)).toEqual(keysBefore);
  });

  it("validates lookups and unlinks the same way", async () => {
    await expectProblem(await get(linkPath("-x", "1"), alice), 422, "validation_failed");
    await expectProblem(await del(linkPath("github", " "), alice), 422, "validation_failed");
    await expectProblem(await get("/v1/links/github/%ZZ", alice), 400, "malformed_request");
  });
});
