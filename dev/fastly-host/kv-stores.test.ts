import { describe, expect, it } from "vitest";
import { KvError } from "./abi.ts";
import { KvStores, kvKeyProblem } from "./kv-stores.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | undefined) => new TextDecoder().decode(data);

function stores(start = 1_000_000) {
  const clock = { now: start };
  return { kv: new KvStores(["s"], () => clock.now), clock };
}

describe("the test host's KV stores (Viceroy's semantics)", () => {
  it("applies Fastly's key rules", () => {
    for (const bad of [
      "",
      ".",
      "..",
      "a/../b",
      "./a",
      "a/.",
      ".well-known/acme-challenge/x",
      "a#b",
      "a;b",
      "a?b",
      "a^b",
      "a|b",
      "a\nb",
      "a\rb",
      " ",
      "\u0001",
      "x".repeat(1025),
    ]) {
      expect(kvKeyProblem(bad), JSON.stringify(bad)).toBeDefined();
    }
    for (const good of ["a", "a.b", "a/b.c", "..a", "a b", "é".repeat(512), "x".repeat(1024)]) {
      expect(kvKeyProblem(good), good).toBeUndefined();
    }
  });

  it("honours the TTL on lookup and list", () => {
    const { kv, clock } = stores();
    kv.insert("s", "k", { body: bytes("v"), mode: "overwrite", ttlSeconds: 60 });
    clock.now += 59_999;
    expect(text(kv.lookup("s", "k")?.body)).toBe("v");
    clock.now += 1;
    expect(kv.lookup("s", "k")).toBeNull();
    expect(JSON.parse(kv.list("s", {}) as string).data).toEqual([]);
  });

  it("mode add fails its precondition when the key exists, and succeeds again once it expired", () => {
    const { kv, clock } = stores();
    expect(kv.insert("s", "k", { body: bytes("1"), mode: "add", ttlSeconds: 60 })).toBe(KvError.OK);
    expect(kv.insert("s", "k", { body: bytes("2"), mode: "add" })).toBe(KvError.PRECONDITION_FAILED);
    expect(text(kv.lookup("s", "k")?.body)).toBe("1");
    clock.now += 60_000;
    expect(kv.insert("s", "k", { body: bytes("3"), mode: "add" })).toBe(KvError.OK);
  });

  it("append, prepend and overwrite with metadata", () => {
    const { kv } = stores();
    kv.insert("s", "k", { body: bytes("b"), mode: "append" });
    kv.insert("s", "k", { body: bytes("a"), mode: "prepend" });
    kv.insert("s", "k", { body: bytes("c"), mode: "append" });
    expect(text(kv.lookup("s", "k")?.body)).toBe("abc");
    kv.insert("s", "k", { body: bytes("x"), mode: "overwrite", metadata: "meta" });
    expect(kv.lookup("s", "k")).toMatchObject({ body: bytes("x"), metadata: "meta" });
  });

  it("a write with a stale generation fails; every write makes a new generation", () => {
    const { kv } = stores();
    kv.insert("s", "k", { body: bytes("1"), mode: "overwrite" });
    const first = kv.lookup("s", "k")!.generation;
    expect(kv.insert("s", "k", { body: bytes("2"), mode: "overwrite", ifGenerationMatch: first })).toBe(KvError.OK);
    const second = kv.lookup("s", "k")!.generation;
    expect(second).toBeGreaterThan(first);
    expect(kv.insert("s", "k", { body: bytes("3"), mode: "overwrite", ifGenerationMatch: first })).toBe(
      KvError.PRECONDITION_FAILED,
    );
  });

  it("lists in key order by prefix, in pages with a base64 cursor, and refuses a forged cursor", () => {
    const { kv } = stores();
    for (const key of ["p/3", "p/1", "q/1", "p/2"]) kv.insert("s", key, { body: bytes(key), mode: "overwrite" });
    const first = JSON.parse(kv.list("s", { prefix: "p/", limit: 2 }) as string);
    expect(first).toEqual({
      data: ["p/1", "p/2"],
      meta: { limit: 2, prefix: "p/", next_cursor: Buffer.from("p/2").toString("base64") },
    });
    const second = JSON.parse(kv.list("s", { prefix: "p/", limit: 2, cursor: first.meta.next_cursor }) as string);
    expect(second).toEqual({ data: ["p/3"], meta: { limit: 2, prefix: "p/" } });
    expect(JSON.parse(kv.list("s", {}) as string).meta.limit).toBe(1000);
    expect(kv.list("s", { cursor: "not base64!" })).toBe(KvError.BAD_REQUEST);
  });

  it("deleting a missing key succeeds", () => {
    expect(stores().kv.delete("s", "nothing")).toBe(KvError.OK);
  });
});
