// The caller's links, GET /v1/me/links, through the whole app: only its own, a page at a time,
// and a page's size against Neon's answer limit.
import { beforeEach, expect, it } from "vitest";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { linkRouteCalls } from "../../test/links/link-routes.ts";
import { linkPath } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import type { Link } from "./link.ts";

describeOnBackends("links API: the caller's links", (harness) => {
  const { fresh, freshUsers, put, get } = linkRouteCalls(harness);
  let alice: TokenClaims;
  beforeEach(() => void ({ alice } = freshUsers()));

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
});
