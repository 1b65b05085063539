// The KV side of the link routes through the whole app: a failing or hanging store never fails a
// request, and a stale entry is never served for longer than the TTL after its link's last read.
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { controlledKv } from "../../test/links/controlled-kv.ts";
import { cachedEntry, linkPath, linkRows } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import type { Logger } from "../log.ts";
import { linkKey } from "./kv-keys.ts";
import type { Link } from "./link.ts";

const TTL_SECONDS = 120;
const service: TokenClaims = { sub: "lookup-service", role: "service" };
const admin: TokenClaims = { sub: "root", role: "admin" };

// Shared by both backends' harnesses (the suite's options are); ids carry the backend's name.
// The store reads the clock on every call, so a test that fakes Date moves its expiry too.
const kv = controlledKv(createMemoryKv(() => Date.now()));
const events: { event: string; operation?: unknown }[] = [];
const logger: Logger = { log: (_level, event, fields = {}) => events.push({ event, operation: fields.operation }) };
const failedOperations = () => events.filter((e) => e.event === "link_cache_failed").map((e) => e.operation);

beforeEach(() => {
  kv.heal();
  events.length = 0;
});

describeOnBackends(
  "links with a failing KV store",
  (harness, backend) => {
    let counter = 0;
    const fresh = (label: string) => `${backend}-${label}-${++counter}`;

    for (const how of ["throw", "hang"] as const) {
      it(`links, looks up and unlinks correctly while every KV call ${how}s`, async () => {
        Object.assign(kv.behaviour, { get: how, put: how, delete: how });
        const owner = { sub: fresh("owner") };
        const path = linkPath("GitHub", fresh(how));

        const created = await harness().request(path, { method: "PUT", as: owner });
        expect(created.status).toBe(201);
        const link = (await created.json()) as Link;
        expect(await linkRows(harness().sql, link)).toHaveLength(1);

        const found = await harness().request(path, { as: owner });
        expect(found.status).toBe(200);
        expect(found.headers.get("x-link-source")).toBe("db");
        expect(await found.json()).toEqual(link);

        expect((await harness().request(path, { method: "DELETE", as: owner })).status).toBe(204);
        expect(await linkRows(harness().sql, link)).toEqual([]);
        await expectProblem(await harness().request(`${path}?consistency=strong`, { as: owner }), 404, "not_found");
        expect(failedOperations()).toEqual(["put", "get", "put", "delete"]);
      });
    }

    it("answers a lookup from Postgres when reading a cached entry fails", async () => {
      const owner = { sub: fresh("owner") };
      const path = linkPath("github", fresh("get-fails"));
      const link = (await (await harness().request(path, { method: "PUT", as: owner })).json()) as Link;
      kv.behaviour.get = "throw";
      const found = await harness().request(path, { as: service });
      expect(found.headers.get("x-link-source")).toBe("db");
      expect(await found.json()).toEqual(link);
    });

    it("a listing that fails ends the call where it is: next lists again, and no write failed", async () => {
      kv.behaviour.list = "throw";
      const response = await harness().request("/v1/admin/links/resync", { method: "POST", as: admin });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ written: 0, removed: 0, unchanged: 0, failed: 0, next: "kv:" });
    });

    it("a sync the store fails answers 200 with caughtUp false; the next one, the store back, catches up", async () => {
      kv.behaviour.get = "throw";
      const failed = await harness().request("/v1/admin/links/sync", { method: "POST", as: admin });
      expect(failed.status).toBe(200);
      expect(await failed.json()).toEqual({ removed: 0, caughtUp: false });
      kv.heal();
      const synced = await harness().request("/v1/admin/links/sync", { method: "POST", as: admin });
      expect(await synced.json()).toMatchObject({ caughtUp: true });
    });

    it("counts as failed the writes that failed, not the reads", async () => {
      const owner = { sub: fresh("owner") };
      const path = linkPath("github", fresh("resync-put-fails"));
      expect((await harness().request(path, { method: "PUT", as: owner })).status).toBe(201);
      kv.behaviour.get = "throw";
      const readsFail = await harness().request("/v1/admin/links/resync", { method: "POST", as: admin });
      expect(await readsFail.json()).toMatchObject({ failed: 0, next: null });
      kv.behaviour.put = "throw"; // the reads failing too: every entry is written again
      const writesFail = await harness().request("/v1/admin/links/resync", { method: "POST", as: admin });
      expect(((await writesFail.json()) as { failed: number }).failed).toBeGreaterThanOrEqual(1);
    });
  },
  { kv, logger, env: { LINK_CACHE_TTL_SECONDS: String(TTL_SECONDS) } },
);

describeOnBackends(
  "a lookup's write-back racing an unlink",
  (harness, backend) => {
    const T0 = Date.UTC(2030, 0, 1);
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["Date"], now: T0 });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it("leaves a stale entry that is served until TTL after the lookup's read, and never after", async () => {
      const owner = { sub: `${backend}-owner` };
      const path = linkPath("github", `${backend}-raced`);
      const link = (await (await harness().request(path, { method: "PUT", as: owner })).json()) as Link;
      const key = await linkKey("acme", link);
      await kv.delete(key); // evicted: the next lookup misses and writes back

      // The lookup reads the link from Postgres at T0, then its write-back stalls on the way.
      const held = kv.holdNextPut();
      const lookup = harness().request(path, { as: service });
      await held.entered;

      // Meanwhile the owner unlinks: the row goes, and the entry (not yet there) is deleted.
      vi.setSystemTime(T0 + 5_000);
      expect((await harness().request(path, { method: "DELETE", as: owner })).status).toBe(204);
      expect(await linkRows(harness().sql, link)).toEqual([]);

      // Now the write-back lands, after the unlink: the entry is stale.
      held.release();
      await held.landed;
      expect((await lookup).status).toBe(200);
      expect((await cachedEntry(kv, link))?.readAt).toBe(T0);

      // It is served (the race is real) while it is within TTL of the read...
      vi.setSystemTime(T0 + TTL_SECONDS * 1000 - 1);
      const stale = await harness().request(path, { as: service });
      expect(stale.headers.get("x-link-source")).toBe("kv");
      expect(await stale.json()).toEqual(link);

      // ...and never after, although this store would keep it a little longer: the store's
      // expiry was fixed when the put was issued, the put landed 5 s later.
      vi.setSystemTime(T0 + TTL_SECONDS * 1000);
      expect(await kv.get(key)).not.toBeNull();
      await expectProblem(await harness().request(path, { as: service }), 404, "not_found");
      // A strong read never saw it at all.
      vi.setSystemTime(T0 + 6_000);
      await expectProblem(await harness().request(`${path}?consistency=strong`, { as: service }), 404, "not_found");
    });

    it("gives each cached link at most the TTL left since its read", async () => {
      const owner = { sub: `${backend}-ttl-owner` };
      const path = linkPath("gitlab", `${backend}-ttl`);
      const link = (await (await harness().request(path, { method: "PUT", as: owner })).json()) as Link;
      expect((await cachedEntry(kv, link))?.readAt).toBe(T0);
      vi.setSystemTime(T0 + TTL_SECONDS * 1000);
      const reread = await harness().request(path, { as: owner });
      expect(reread.headers.get("x-link-source")).toBe("db"); // expired: back to Postgres
      expect((await cachedEntry(kv, link))?.readAt).toBe(T0 + TTL_SECONDS * 1000);
    });
  },
  { kv, logger, env: { LINK_CACHE_TTL_SECONDS: String(TTL_SECONDS) } },
);
