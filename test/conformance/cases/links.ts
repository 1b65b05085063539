// Links: one external account, one user. Postgres decides; KV only serves reads.
import { describe, expect, it } from "vitest";
import { type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";

const LINK_SOURCE = "x-link-source";

/** The link limits every conformance server runs with, so each runtime is seen applying them. */
export const CONFORMANCE_LINK_LIMITS = { LINK_MAX_PER_USER: "3", LINK_PROVIDERS: "github,gitlab,bitbucket" };

export function linkCases(call: Call) {
  /** A user of its own, so "the caller already has a github account" never leaks between cases. */
  const newUser = () => ({ sub: unique("user"), tid: "acme" });
  const linkPath = (provider: string, id: string) => `/v1/links/${provider}/${encodeURIComponent(id)}`;

  describe("links", () => {
    it("PUT links a new account: 201, Location, the link", async () => {
      const user = newUser();
      const id = unique("gh");
      const answer = await call("PUT", linkPath("github", id), { as: user, body: { displayName: "Octo Cat" } });
      expectStatus(answer, 201);
      expect(answer.json).toEqual({
        provider: "github",
        externalAccountId: id,
        userId: user.sub,
        displayName: "Octo Cat",
        linkedAt: expect.any(String),
      });
      expect(Number.isNaN(Date.parse(answer.json.linkedAt))).toBe(false);
      const location = answer.headers.get("location");
      expect(location).toBe(linkPath("github", id));
      expectStatus(await call("GET", location!, { as: user }), 200);
    });

    it("PUT without a body links with no display name", async () => {
      const user = newUser();
      const answer = await call("PUT", linkPath("gitlab", unique("gl")), { as: user });
      expectStatus(answer, 201);
      expect(answer.json.displayName).toBeNull();
    });

    it("the provider is case-insensitive and the id trimmed: the same link, 200 the second time", async () => {
      const user = newUser();
      const id = unique("gh");
      expectStatus(await call("PUT", linkPath("GitHub", ` ${id} `), { as: user }), 201);
      const again = await call("PUT", linkPath("github", id), { as: user });
      expectStatus(again, 200);
      expect(again.json).toMatchObject({ provider: "github", externalAccountId: id, userId: user.sub });
      expect(again.headers.get("location")).toBeNull();
    });

    it("an account linked to another user: 409 external_account_already_linked", async () => {
      const id = unique("gh");
      expectStatus(await call("PUT", linkPath("github", id), { as: newUser() }), 201);
      expectProblem(
        await call("PUT", linkPath("GITHUB", id), { as: newUser() }),
        409,
        "external_account_already_linked",
      );
    });

    it("a second account of the same provider: 409 provider_already_linked", async () => {
      const user = newUser();
      expectStatus(await call("PUT", linkPath("github", unique("gh")), { as: user }), 201);
      expectProblem(await call("PUT", linkPath("github", unique("gh")), { as: user }), 409, "provider_already_linked");
      expect((await call("GET", "/v1/me/links", { as: user })).json.items).toHaveLength(1);
    });

    it("refused bodies: 415, 400, 422 (display name over 200 characters), nothing linked", async () => {
      const user = newUser();
      const path = linkPath("github", unique("gh"));
      const json = { "content-type": "application/json" };
      expectProblem(
        await call("PUT", path, { as: user, body: "{}", headers: { "content-type": "text/plain" } }),
        415,
        "unsupported_media_type",
      );
      expectProblem(await call("PUT", path, { as: user, body: "{nope", headers: json }), 400, "malformed_request");
      expectProblem(
        await call("PUT", path, { as: user, body: { displayName: "x".repeat(201) } }),
        422,
        "validation_failed",
      );
      expectProblem(await call("GET", path, { as: { ...user, role: "service" } }), 404, "not_found");
      expect((await call("GET", "/v1/me/links", { as: user })).json.items).toEqual([]);
    });

    it("GET serves from KV once cached (X-Link-Source: kv); ?consistency=strong reads Postgres (db)", async () => {
      const user = newUser();
      const path = linkPath("github", unique("gh"));
      expectStatus(await call("PUT", path, { as: user }), 201);
      const cached = await call("GET", path, { as: user });
      expectStatus(cached, 200);
      expect(cached.headers.get(LINK_SOURCE)).toBe("kv");
      const strong = await call("GET", `${path}?consistency=strong`, { as: user });
      expectStatus(strong, 200);
      expect(strong.headers.get(LINK_SOURCE)).toBe("db");
      expect(strong.json).toEqual(cached.json);
    });

    it("a user sees only its own links; service and admin tokens see any", async () => {
      const owner = newUser();
      const path = linkPath("github", unique("gh"));
      expectStatus(await call("PUT", path, { as: owner }), 201);
      const stranger = await call("GET", path, { as: newUser() });
      expectProblem(stranger, 404, "not_found");
      expect(stranger.headers.get(LINK_SOURCE)).toBeNull();
      expectProblem(await call("GET", `${path}?consistency=strong`, { as: newUser() }), 404, "not_found");
      for (const role of ["service", "admin"] as const) {
        const answer = await call("GET", path, { as: { sub: unique(role), tid: "acme", role } });
        expectStatus(answer, 200);
        expect(answer.json.userId).toBe(owner.sub);
      }
    });

    it("GET of an account nobody linked: 404", async () => {
      expectProblem(await call("GET", linkPath("github", unique("none")), { as: newUser() }), 404, "not_found");
    });

    it("DELETE: 404 for anyone but the owner, 204 for the owner, then the account is free", async () => {
      const owner = newUser();
      const path = linkPath("github", unique("gh"));
      expectStatus(await call("PUT", path, { as: owner }), 201);
      expectProblem(await call("DELETE", path, { as: newUser() }), 404, "not_found");
      expectProblem(
        await call("DELETE", path, { as: { sub: unique("admin"), tid: "acme", role: "admin" } }),
        404,
        "not_found",
      );
      const deleted = await call("DELETE", path, { as: owner });
      expectStatus(deleted, 204);
      expect(deleted.text).toBe("");
      expectProblem(await call("GET", path, { as: owner }), 404, "not_found");
      expectProblem(await call("DELETE", path, { as: owner }), 404, "not_found");
      expectStatus(await call("PUT", path, { as: newUser() }), 201);
    });

    it("GET /v1/me/links lists the caller's links only", async () => {
      const user = newUser();
      const ids = [unique("gh"), unique("gl")];
      expectStatus(await call("PUT", linkPath("github", ids[0]!), { as: user }), 201);
      expectStatus(await call("PUT", linkPath("gitlab", ids[1]!), { as: user }), 201);
      expectStatus(await call("PUT", linkPath("github", unique("gh")), { as: newUser() }), 201);
      const answer = await call("GET", "/v1/me/links", { as: user });
      expectStatus(answer, 200);
      expect(answer.json.items.map((link: { externalAccountId: string }) => link.externalAccountId).sort()).toEqual(
        [...ids].sort(),
      );
      expect(answer.json.items.every((link: { userId: string }) => link.userId === user.sub)).toBe(true);
    });

    it("GET /v1/me/links pages in provider order: next until the last page, limit at most 100", async () => {
      const user = newUser();
      for (const provider of ["gitlab", "bitbucket", "github"]) {
        expectStatus(await call("PUT", linkPath(provider, unique(provider)), { as: user }), 201);
      }
      const first = await call("GET", "/v1/me/links?limit=2", { as: user });
      expectStatus(first, 200);
      expect(first.json.items.map((link: { provider: string }) => link.provider)).toEqual(["bitbucket", "github"]);
      expect(first.json.next).toEqual(expect.any(String));
      const last = await call("GET", `/v1/me/links?limit=2&after=${encodeURIComponent(first.json.next)}`, { as: user });
      expect(last.json).toEqual({ items: [expect.objectContaining({ provider: "gitlab" })], next: null });
      expect((await call("GET", "/v1/me/links", { as: user })).json).toMatchObject({ next: null });
      expectProblem(await call("GET", "/v1/me/links?limit=101", { as: user }), 422, "validation_failed");
    });

    it("LINK_MAX_PER_USER: at the cap a new link is 409 link_limit_reached, a re-link of one's own 200", async () => {
      const user = newUser();
      const own = unique("gh");
      expectStatus(await call("PUT", linkPath("github", own), { as: user }), 201);
      for (const provider of ["gitlab", "bitbucket"]) {
        expectStatus(await call("PUT", linkPath(provider, unique(provider)), { as: user }), 201);
      }
      const refused = await call("PUT", linkPath("github", unique("gh")), { as: user });
      expectProblem(refused, 409, "link_limit_reached");
      expectStatus(await call("PUT", linkPath("github", own), { as: user }), 200);
      expect((await call("GET", "/v1/me/links", { as: user })).json.items).toHaveLength(3);
    });

    it("LINK_PROVIDERS: a provider not on the list is 422 provider_not_allowed, and nothing is linked", async () => {
      const user = newUser();
      const path = linkPath("myspace", unique("ms"));
      expectProblem(await call("PUT", path, { as: user }), 422, "provider_not_allowed");
      expectProblem(await call("GET", path, { as: user }), 404, "not_found");
      expect((await call("GET", "/v1/me/links", { as: user })).json.items).toEqual([]);
    });

    it("the same sub in another tenant is another user: it neither lists nor unlinks the first one's links", async () => {
      const sub = unique("user");
      const [home, away] = [freshTenant(), freshTenant()];
      const path = linkPath("github", unique("gh"));
      expectStatus(await call("PUT", path, { as: { sub, tid: home } }), 201);
      expect((await call("GET", "/v1/me/links", { as: { sub, tid: away } })).json.items).toEqual([]);
      expectProblem(await call("DELETE", path, { as: { sub, tid: away } }), 404, "not_found");
      const lookup = await call("GET", path, { as: { sub, tid: away } });
      expectProblem(lookup, 404, "not_found");
      expect(lookup.headers.get(LINK_SOURCE)).toBeNull();
      expect((await call("GET", "/v1/me/links", { as: { sub, tid: home } })).json.items).toHaveLength(1);
      expect((await call("GET", path, { as: { sub, tid: home } })).headers.get(LINK_SOURCE)).toBe("kv");
    });

    it("service and admin tokens read and resync their own tenant's links only", async () => {
      const [home, away] = [freshTenant(), freshTenant()];
      const path = linkPath("github", unique("gh"));
      expectStatus(await call("PUT", path, { as: { sub: unique("user"), tid: home } }), 201);
      for (const role of ["service", "admin"] as const) {
        for (const consistency of ["", "?consistency=strong"]) {
          const answer = await call("GET", path + consistency, { as: { sub: unique(role), tid: away, role } });
          expectProblem(answer, 404, "not_found");
          expect(answer.headers.get(LINK_SOURCE)).toBeNull();
        }
      }
      const resync = await call("POST", "/v1/admin/links/resync", { as: { sub: "root", tid: away, role: "admin" } });
      expectStatus(resync, 200);
      expect(resync.json).toEqual({ written: 0, removed: 0, unchanged: 0, failed: 0, next: null });
      const own = await call("POST", "/v1/admin/links/resync", { as: { sub: "root", tid: home, role: "admin" } });
      expect(own.json.written + own.json.unchanged).toBe(1);
    });

    it("an account linked in another tenant is free here: 201, never a 409 that tells of it", async () => {
      const [home, away] = [freshTenant(), freshTenant()];
      const id = unique("gh");
      const first = { sub: unique("user"), tid: home };
      const second = { sub: unique("user"), tid: away };
      expectStatus(await call("PUT", linkPath("github", id), { as: first, body: { displayName: "first" } }), 201);
      const answer = await call("PUT", linkPath("GitHub", id), { as: second, body: { displayName: "second" } });
      expectStatus(answer, 201);
      expect(answer.json).toMatchObject({ userId: second.sub, displayName: "second" });
      // Each tenant's cache answers its own owner.
      for (const [as, owner] of [
        [first, first.sub],
        [second, second.sub],
      ] as const) {
        const lookup = await call("GET", linkPath("github", id), { as: { ...as, role: "service" } });
        expectStatus(lookup, 200);
        expect(lookup.json.userId).toBe(owner);
      }
      expectStatus(await call("DELETE", linkPath("github", id), { as: second }), 204);
      expect((await call("GET", linkPath("github", id), { as: first })).json.displayName).toBe("first");
    });

    it("POST /v1/admin/links/sync: 403 for user and service tokens; for an admin, one sync of the change feed", async () => {
      for (const role of ["user", "service"] as const) {
        expectProblem(
          await call("POST", "/v1/admin/links/sync", { as: { sub: unique(role), tid: "acme", role } }),
          403,
          "forbidden",
        );
      }
      const tenant = freshTenant();
      const user = { sub: unique("user"), tid: tenant };
      const path = linkPath("github", unique("gh"));
      expectStatus(await call("PUT", path, { as: user, body: { displayName: "before" } }), 201);
      expect((await call("GET", path, { as: user })).headers.get(LINK_SOURCE)).toBe("kv");
      expectStatus(await call("PUT", path, { as: user, body: { displayName: "after" } }), 200);
      const sync = await call("POST", "/v1/admin/links/sync", { as: { sub: "root", tid: tenant, role: "admin" } });
      expectStatus(sync, 200);
      expect(sync.json).toEqual({ removed: expect.any(Number), caughtUp: true });
      // Synced: whatever this edge serves now is the renamed link (its own copy of the rename
      // equals Postgres and may stay; a copy of the old name would have been deleted).
      const lookup = await call("GET", path, { as: user });
      expectStatus(lookup, 200);
      expect(lookup.json.displayName).toBe("after");
    });

    it("POST /v1/admin/links/resync: 403 forbidden for user and service tokens", async () => {
      for (const role of ["user", "service"] as const) {
        expectProblem(
          await call("POST", "/v1/admin/links/resync", { as: { sub: unique(role), tid: "acme", role } }),
          403,
          "forbidden",
        );
      }
    });

    it("POST /v1/admin/links/resync: 200 with counts for an admin, and the cache serves every link after", async () => {
      const user = newUser();
      const path = linkPath("github", unique("gh"));
      expectStatus(await call("PUT", path, { as: user }), 201);
      // A call does what the platform allows one invocation (Workers: 1,000 KV operations); the
      // admin goes on from `next` until it is null.
      let written = 0;
      for (let after: string | null = ""; after !== null; ) {
        const query = after ? `?after=${encodeURIComponent(after)}` : "";
        const answer = await call("POST", `/v1/admin/links/resync${query}`, {
          as: { sub: "root", tid: "acme", role: "admin" },
        });
        expectStatus(answer, 200);
        expect(answer.json).toEqual({
          written: expect.any(Number),
          removed: expect.any(Number),
          unchanged: expect.any(Number),
          failed: 0,
          next: answer.json.next,
        });
        expect(answer.json.next === null || typeof answer.json.next === "string").toBe(true);
        written += answer.json.written + answer.json.unchanged;
        after = answer.json.next;
      }
      expect(written).toBeGreaterThanOrEqual(1);
      expect((await call("GET", path, { as: user })).headers.get(LINK_SOURCE)).toBe("kv");
    });
  });
}
