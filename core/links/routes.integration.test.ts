// The link routes through the whole app: linking and its conflicts, unlinking, what each costs,
// and what they refuse. Lookups: routes-lookup; the caller's list: routes-listing.
import { beforeEach, expect, it } from "vitest";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { admin, linkRouteCalls, service } from "../../test/links/link-routes.ts";
import { cachedEntry, cacheKeys, linkPath, linkRows } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import { linkKey } from "./kv-keys.ts";
import type { Link } from "./link.ts";

describeOnBackends(
  "links API",
  (harness) => {
    const { fresh, freshUsers, put, get, del } = linkRouteCalls(harness);
    let alice: TokenClaims;
    let bob: TokenClaims;
    beforeEach(() => void ({ alice, bob } = freshUsers()));

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
      // The link's read before the answer; the one confirming its copy after it (core/links/write-back.ts).
      expect(await trips(() => get(path, alice), 200)).toBe(1);
      await harness().settled();
      expect(endpoint.statements()).toBe(2);
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
  },
  { waitUntil: true },
);
