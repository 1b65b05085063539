import { describe, expect, it } from "vitest";
import type { DenoKv } from "../kv/deno-kv.ts";
import { type DenoKvOpener, openKvAt } from "./kv-path.ts";

const store = {} as DenoKv;
const locked = () => new Error("database is locked");

/** A Deno whose openKv fails with each of `failures` in turn, then opens; every permission granted. */
function denoFailing(...failures: Error[]) {
  const deno = {
    opened: 0,
    async openKv() {
      deno.opened++;
      const failure = failures.shift();
      if (failure) throw failure;
      return store;
    },
    permissions: { query: async () => ({ state: "granted" }) },
  } satisfies DenoKvOpener & { opened: number };
  return deno;
}

describe("openKvAt", () => {
  it("opens again while another process holds the file's lock", async () => {
    const deno = denoFailing(locked(), locked(), locked());
    expect(await openKvAt(deno, "/srv/kv.sqlite")).toBe(store);
    expect(deno.opened).toBe(4);
  });

  it("fails with one line naming DENO_KV_PATH once the file has stayed locked for the wait after the first try", async () => {
    const deno = denoFailing(...Array.from({ length: 1000 }, locked));
    const started = Date.now();
    await expect(openKvAt(deno, "/srv/kv.sqlite", { lockedRetryMs: 100 })).rejects.toThrow(
      /^DENO_KV_PATH stayed locked by another process for 0.1 s$/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(deno.opened).toBeGreaterThan(1);
  });

  it("does not wait out any other failure", async () => {
    const deno = denoFailing(Object.assign(new Error("unable to open database file"), { name: "NotFound" }));
    await expect(openKvAt(deno, "/srv/kv.sqlite")).rejects.toThrow(
      "DENO_KV_PATH cannot be opened (NotFound): its folder must exist and be writable",
    );
    expect(deno.opened).toBe(1);
  });

  it("refuses a path it may not read or write, before opening anything", async () => {
    const deno = { ...denoFailing(), permissions: { query: async () => ({ state: "prompt" }) } };
    await expect(openKvAt(deno, "/srv/kv.sqlite")).rejects.toThrow("DENO_KV_PATH needs read access");
  });
});
