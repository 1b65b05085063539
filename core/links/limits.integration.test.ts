import { expect, it } from "vitest";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { cachedEntry, linkPath, linkRows } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import { linkAccount } from "./repository.ts";

const PROVIDERS = ["github", "gitlab", "bitbucket", "google"];
const changesOf = (sql: { query: (text: string, params: unknown[]) => Promise<unknown[]> }, id: string) =>
  sql.query("SELECT 1 FROM link_changes WHERE external_account_id = $1", [id]);

describeOnBackends(
  "link limits",
  (harness) => {
    let counter = 0;
    const fresh = (label: string) => `${label}-limits-${++counter}`;
    const put = (path: string, as: TokenClaims) => harness().request(path, { method: "PUT", as });
    const linkAll = async (as: TokenClaims, providers: string[]) => {
      for (const provider of providers) expect((await put(linkPath(provider, fresh(provider)), as)).status).toBe(201);
    };

    it("a user at LINK_MAX_PER_USER links nothing new: 409 link_limit_reached, nothing written", async () => {
      const user = { sub: fresh("full") };
      await linkAll(user, PROVIDERS.slice(0, 3));
      const id = fresh("fourth");
      const refused = await put(linkPath("google", id), user);
      const problem = await expectProblem(refused, 409, "link_limit_reached");
      // The bound, so that a client can tell its user how many links there may be.
      expect(problem.detail).toBe(
        "A user may hold at most 3 links, and you have reached that limit; unlink one first.",
      );
      expect(await linkRows(harness().sql, { provider: "google", externalAccountId: id })).toEqual([]);
      expect(await changesOf(harness().sql, id)).toEqual([]);
      expect(await cachedEntry(harness().kv, { provider: "google", externalAccountId: id })).toBeUndefined();
      // Even an account someone else holds: the cap is answered before the owner is.
      const taken = fresh("taken");
      expect((await put(linkPath("google", taken), { sub: fresh("other") })).status).toBe(201);
      await expectProblem(await put(linkPath("google", taken), user), 409, "link_limit_reached");
    });

    it("at the cap, re-linking one's own account still answers 200; after an unlink there is room for one", async () => {
      const user = { sub: fresh("full") };
      const id = fresh("own");
      expect((await put(linkPath("github", id), user)).status).toBe(201);
      await linkAll(user, ["gitlab", "bitbucket"]);
      expect((await put(linkPath("GitHub", id), user)).status).toBe(200);
      expect((await harness().request(linkPath("github", id), { method: "DELETE", as: user })).status).toBe(204);
      expect((await put(linkPath("google", fresh("google")), user)).status).toBe(201);
      await expectProblem(await put(linkPath("github", fresh("again")), user), 409, "link_limit_reached");
    });

    it("the cap is per user and per tenant", async () => {
      const sub = fresh("shared");
      await linkAll({ sub, tid: "north" }, PROVIDERS.slice(0, 3));
      await linkAll({ sub, tid: "south" }, PROVIDERS.slice(0, 3));
      await linkAll({ sub: fresh("neighbour"), tid: "north" }, PROVIDERS.slice(0, 3));
    });

    it("a cap lowered below what a user holds keeps their links, and refuses new ones", async () => {
      const user = { sub: fresh("before") };
      await linkAll(user, PROVIDERS.slice(0, 3));
      const lowered = await linkAccount(harness().sql, {
        tenantId: "acme",
        provider: "google",
        externalAccountId: fresh("google"),
        userId: user.sub,
        displayName: null,
        replaceDisplayName: false,
        maxLinksPerUser: 1,
      });
      expect(lowered).toEqual({ outcome: "conflict", code: "link_limit_reached" });
      const listed = await (await harness().request("/v1/me/links", { as: user })).json();
      expect(listed.items).toHaveLength(3);
    });

    it("a provider off LINK_PROVIDERS: 422 provider_not_allowed, nothing written; its lookups stay 404", async () => {
      const user = { sub: fresh("stray") };
      const id = fresh("myspace");
      const refused = await put(linkPath("MySpace", id), user);
      const problem = await expectProblem(refused, 422, "provider_not_allowed");
      expect(problem.detail).toContain("github, gitlab, bitbucket, google");
      expect(await linkRows(harness().sql, { provider: "myspace", externalAccountId: id })).toEqual([]);
      await expectProblem(await harness().request(linkPath("myspace", id), { as: user }), 404, "not_found");
      await expectProblem(
        await harness().request(linkPath("myspace", id), { method: "DELETE", as: user }),
        404,
        "not_found",
      );
      // Listed providers in any spelling are accepted.
      expect((await put(linkPath(" GitLab ", fresh("gl")), user)).status).toBe(201);
    });

    it("a link of a provider taken off LINK_PROVIDERS can be read, listed and unlinked, not linked again", async () => {
      const user = { sub: fresh("early") };
      const id = fresh("myspace");
      const made = await linkAccount(harness().sql, {
        tenantId: "acme",
        provider: "myspace",
        externalAccountId: id,
        userId: user.sub,
        displayName: null,
        replaceDisplayName: false,
        maxLinksPerUser: 3,
      });
      expect(made.outcome).toBe("created");
      await expectProblem(await put(linkPath("myspace", id), user), 422, "provider_not_allowed");
      expect((await harness().request(linkPath("myspace", id), { as: user })).status).toBe(200);
      const listed = await (await harness().request("/v1/me/links", { as: user })).json();
      expect(listed.items.map((link: { provider: string }) => link.provider)).toEqual(["myspace"]);
      expect((await harness().request(linkPath("myspace", id), { method: "DELETE", as: user })).status).toBe(204);
    });
  },
  { env: { LINK_MAX_PER_USER: "3", LINK_PROVIDERS: PROVIDERS.join(",") } },
);
