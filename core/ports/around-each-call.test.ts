import { describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { aroundEachKvCall, aroundEachSqlCall } from "./around-each-call.ts";
import type { Sql } from "./sql.ts";

describe("a port with something run around each call", () => {
  it("forwards every KV method with its arguments and answer, naming the method", async () => {
    const methods: string[] = [];
    const kv = aroundEachKvCall(createMemoryKv(), (call, method) => (methods.push(method), call()));
    await kv.put("k", "v", { ttlSeconds: 60 });
    expect(await kv.get("k")).toBe("v");
    expect(await kv.list("", { limit: 10 })).toEqual({ keys: ["k"] });
    await kv.delete("k");
    expect(await kv.get("k")).toBeNull();
    expect(methods).toEqual(["put", "get", "list", "delete", "get"]);
  });

  it("forwards a bulk read where the store has one, and offers none where it has not", async () => {
    const store = createMemoryKv();
    await store.put("a", "1", { ttlSeconds: 60 });
    const methods: string[] = [];
    const kv = aroundEachKvCall(store, (call, method) => (methods.push(method), call()));
    expect(await kv.getMany?.(["a", "b"])).toEqual(["1", null]);
    expect(methods).toEqual(["getMany"]);
    expect(aroundEachKvCall({ ...store, getMany: undefined }, (call) => call()).getMany).toBeUndefined();
  });

  it("keeps what the store says of its reads' lag, and says none where the store says none", () => {
    const store = createMemoryKv();
    expect(aroundEachKvCall({ ...store, readLagMs: 60_000 }, (call) => call()).readLagMs).toBe(60_000);
    expect("readLagMs" in aroundEachKvCall(store, (call) => call())).toBe(false);
  });

  it("forwards every SQL method with its arguments and answer, naming the method", async () => {
    const seen: unknown[] = [];
    const sql: Sql = {
      query: async (text, params) => (seen.push([text, params]), [{ n: 1 }] as never),
      transaction: async (statements, options) => (seen.push([statements, options]), [[{ n: 2 }]]),
    };
    const methods: string[] = [];
    const wrapped = aroundEachSqlCall(sql, (call, method) => (methods.push(method), call()));
    expect(await wrapped.query("SELECT $1", ["1"])).toEqual([{ n: 1 }]);
    expect(await wrapped.transaction([{ text: "SELECT 2" }], { readOnly: true })).toEqual([[{ n: 2 }]]);
    expect(seen).toEqual([
      ["SELECT $1", ["1"]],
      [[{ text: "SELECT 2" }], { readOnly: true }],
    ]);
    expect(methods).toEqual(["query", "transaction"]);
  });

  it("answers a throw before the call as a rejection, and makes no call", async () => {
    const store = createMemoryKv();
    let reads = 0;
    const counted = aroundEachKvCall(store, (call) => (reads++, call()));
    const refusing = aroundEachKvCall(counted, () => {
      throw new Error("refused");
    });
    const pending = refusing.get("k");
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toThrow("refused");
    expect(reads).toBe(0);
  });
});
