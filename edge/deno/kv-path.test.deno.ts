// Runs under `deno test` only (dev/support/deno-tests.ts): real Deno KV on a file that another
// thread keeps locked (test/support/sqlite-lock-holder.ts) longer than SQLite waits on its own.
import assert from "node:assert/strict";
import { type DenoKvOpener, LOCKED_RETRY_MS, openKvAt } from "./kv-path.ts";

interface DenoTestGlobal extends DenoKvOpener {
  makeTempDir(): Promise<string>;
  remove(path: string, options: { recursive: boolean }): Promise<void>;
  test(name: string, run: () => Promise<void>): void;
}
const deno = (globalThis as unknown as { Deno: DenoTestGlobal }).Deno;

// Deno KV's SQLite waits 5 s for a lock (rusqlite's busy timeout), then answers "database is locked".
const SQLITE_WAIT_MS = 5_000;

deno.test("openKvAt opens a file another connection keeps locked past SQLite's own wait, once it is free", async () => {
  const dir = await deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const heldMs = SQLITE_WAIT_MS + 1_000;
  assert.ok(heldMs < SQLITE_WAIT_MS + LOCKED_RETRY_MS);
  const holder = new Worker(new URL("../../test/support/sqlite-lock-holder.ts", import.meta.url), { type: "module" });
  let heldAt!: (at: number) => void;
  let releasedNow!: () => void;
  const held = new Promise<number>((resolve) => (heldAt = resolve));
  const released = new Promise<void>((resolve) => (releasedNow = resolve));
  holder.onmessage = ({ data }) => (data === "held" ? heldAt(Date.now()) : releasedNow());
  holder.postMessage({ path, ms: heldMs });
  try {
    const since = await held;
    const kv = (await openKvAt(deno, path)) as unknown as { close(): void };
    assert.ok(Date.now() - since >= heldMs - 50, "opened before the lock was released");
    kv.close();
    await released;
  } finally {
    holder.terminate();
    await deno.remove(dir, { recursive: true });
  }
});
