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
import { aroundEachKvCall } from "../ports/around-each-call.ts";
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
        // Its failed put is confirmed after the answer; a hung one never ends, leaving nothing to confirm.
        if (how === "throw") await harness().settled();

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
  { kv, logger, env: { LINK_CACHE_TTL_SECONDS: String(TTL_SECONDS) }, waitUntil: true },
);

describeOnBackends(
  "a lookup's write-back racing a change",
  (harness, backend) => {
    const T0 = Date.UTC(2030, 0, 1);
    let counter = 0;
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["Date"], now: T0 });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A link of its own, not cached: its next lookup misses and writes back. */
    async function evictedLink(label: string) {
      const owner = { sub: `${backend}-${label}-${++counter}` };
      const path = linkPath("github", owner.sub);
      const link = (await (await harness().request(path, { method: "PUT", as: owner })).json()) as Link;
      const key = await linkKey("acme", link);
      await kv.delete(key);
      return { owner, path, link, key };
    }

    /** A lookup that read the link from Postgres, its write-back held on the way to the store. */
    async function heldWriteBack(label: string) {
      const evicted = await evictedLink(label);
      const held = kv.holdNextPut();
      const lookup = harness().request(evicted.path, { as: service });
      await held.entered;
      return { ...evicted, held, lookup };
    }

    /** The sync of this deployment's change feed, as its scheduler would run it. */
    const sync = async () =>
      expect((await harness().request("/v1/admin/links/sync", { method: "POST", as: admin })).status).toBe(200);

    it("an unlink synced before the write-back lands: the lookup deletes its copy, not served until its TTL", async () => {
      const { owner, path, key, held, lookup } = await heldWriteBack("unlinked"); // read at T0

      // Meanwhile the owner unlinks and the sync applies it: no entry yet, nothing to delete.
      vi.setSystemTime(T0 + 5_000);
      expect((await harness().request(path, { method: "DELETE", as: owner })).status).toBe(204);
      await sync();

      // The write-back lands after both; after its answer the lookup reads the link again and
      // deletes its copy.
      held.release();
      const answered = await lookup;
      expect([answered.status, answered.headers.get("x-link-source")]).toEqual([200, "db"]);
      await harness().settled();
      expect(await kv.get(key)).toBeNull();
      vi.setSystemTime(T0 + TTL_SECONDS * 1000 - 1);
      await expectProblem(await harness().request(path, { as: service }), 404, "not_found");
    });

    it("a rename that lands first is not overwritten by the old name for longer than the lookup", async () => {
      const { owner, path, key, held, lookup } = await heldWriteBack("renamed");
      const body = { displayName: "renamed" };
      expect((await harness().request(path, { method: "PUT", as: owner, body })).status).toBe(200);
      held.release();
      expect((await lookup).status).toBe(200);
      await harness().settled();
      expect(await kv.get(key)).toBeNull(); // the old name's copy is gone: the next lookup reads Postgres
      const reread = await harness().request(path, { as: service });
      expect([reread.headers.get("x-link-source"), ((await reread.json()) as Link).displayName]).toEqual([
        "db",
        "renamed",
      ]);
    });

    it("a delete the store refuses (Workers KV: a key written within the second) is tried again", async () => {
      const { owner, path, key, held, lookup } = await heldWriteBack("refused");
      expect((await harness().request(path, { method: "DELETE", as: owner })).status).toBe(204);
      kv.refuseNext("delete");
      held.release();
      expect((await lookup).status).toBe(200);
      await harness().settled();
      expect(await kv.get(key)).toBeNull();
      expect(failedOperations()).toEqual(["delete"]);
    });

    it("a put that outlives its deadline is confirmed when it lands, after the answer", async () => {
      const { owner, path, key, held, lookup } = await heldWriteBack("late");
      const answered = await lookup; // the put's 1 s deadline passed: answered, its copy still on the way
      expect([answered.status, failedOperations()]).toEqual([200, ["put"]]);
      expect((await harness().request(path, { method: "DELETE", as: owner })).status).toBe(204);
      await sync();
      held.release();
      await held.landed;
      await harness().settled();
      expect(await kv.get(key)).toBeNull();
    });

    it("a miss with nothing changed keeps its copy: the next lookup is a hit", async () => {
      const { path, link } = await evictedLink("kept");
      expect((await harness().request(path, { as: service })).headers.get("x-link-source")).toBe("db");
      await harness().settled();
      expect((await cachedEntry(kv, link))?.readAt).toBe(T0);
      expect((await harness().request(path, { as: service })).headers.get("x-link-source")).toBe("kv");
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
  { kv, logger, env: { LINK_CACHE_TTL_SECONDS: String(TTL_SECONDS) }, waitUntil: true },
);

// What a lookup costs: the statements the local database endpoint answered, and the store's calls.
const kvCalls: string[] = [];
const countedKv = aroundEachKvCall(createMemoryKv(), (call, method) => (kvCalls.push(method), call()));

describeOnBackends(
  "what a lookup costs",
  (harness, backend) => {
    async function cost(path: string) {
      const { endpoint } = harness().stack;
      endpoint.resetStatements();
      kvCalls.length = 0;
      const answer = await harness().request(path, { as: service });
      await harness().settled(); // what the lookup left running after its answer counts too
      return { source: answer.headers.get("x-link-source"), statements: endpoint.statements(), kv: [...kvCalls] };
    }

    it("a miss: a KV read, the link's read, a put and the read that confirms it; a hit: a KV read", async () => {
      const path = linkPath("github", `${backend}-counted`);
      const link = (await (await harness().request(path, { method: "PUT", as: { sub: "counted" } })).json()) as Link;
      await countedKv.delete(await linkKey("acme", link));
      expect(await cost(path)).toEqual({ source: "db", statements: 2, kv: ["get", "put"] });
      expect(await cost(path)).toEqual({ source: "kv", statements: 0, kv: ["get"] });
      expect(await cost(`${path}?consistency=strong`)).toEqual({ source: "db", statements: 1, kv: [] });
    });
  },
  { kv: countedKv, waitUntil: true },
);
