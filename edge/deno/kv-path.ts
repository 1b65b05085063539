// DENO_KV_PATH, the file Deno KV keeps the link cache in when self-hosted. `deno task start` runs
// this file first: its output is the read and write permission for exactly that path, since a
// task cannot add a flag only when a variable is set (an empty --allow-read= is refused).
import { SettingsError } from "../../core/settings/error.ts";
import type { DenoKv } from "../kv/deno-kv.ts";

/** Not a file: Deno KV in memory, for tests and the local launcher. */
const IN_MEMORY = ":memory:";

/**
 * `--allow-read` and `--allow-write` for the path, or nothing for Deno's default location (which
 * needs no permission) or memory. A comma separates permission paths and the task splits its
 * output at whitespace, so such a path gets nothing, and the entry's check names the setting.
 */
export function kvPathFlags(path: string | undefined): string[] {
  if (!path || path === IN_MEMORY || /[\s,]/.test(path)) return [];
  return [`--allow-read=${path}`, `--allow-write=${path}`];
}

export interface DenoKvOpener {
  openKv(path?: string): Promise<DenoKv>;
  permissions: { query(descriptor: { name: "read" | "write"; path: string }): Promise<{ state: string }> };
}

/** SQLite's answer while another process holds the file's lock (SQLITE_BUSY), which passes. */
const LOCKED = /database is locked/i;
const isLocked = (error: unknown) => error instanceof Error && LOCKED.test(error.message);

/**
 * How long opening tries again once the file was found locked: as long as each try waits for a
 * lock itself (Deno KV's SQLite, rusqlite's busy timeout). Processes started together over one new
 * file lock it in turn to set it up, and SQLite answers some of them "locked" at once instead of
 * waiting, where waiting could deadlock (one of three, on a busy 2-core machine).
 */
export const LOCKED_RETRY_MS = 5_000;
const RETRY_PAUSE_MS = 20;

/** Opens the KV database, or throws a SettingsError naming DENO_KV_PATH (never its value). */
export async function openKvAt(
  deno: DenoKvOpener,
  path: string | undefined,
  { lockedRetryMs = LOCKED_RETRY_MS } = {},
): Promise<DenoKv> {
  if (path && path !== IN_MEMORY) {
    for (const name of ["read", "write"] as const) {
      if ((await deno.permissions.query({ name, path })).state !== "granted") {
        throw new SettingsError("DENO_KV_PATH", `needs ${name} access: run it with deno task start, which grants it`);
      }
    }
  }
  try {
    return await openWaitingOutLocks(deno, path, lockedRetryMs);
  } catch (error) {
    if (isLocked(error)) {
      throw new SettingsError("DENO_KV_PATH", `stayed locked by another process for ${lockedRetryMs / 1000} s`);
    }
    const reason = error instanceof Error ? error.name : "error";
    throw new SettingsError("DENO_KV_PATH", `cannot be opened (${reason}): its folder must exist and be writable`);
  }
}

/** Tries again while the file is locked, for `retryMs` from the first "locked". */
async function openWaitingOutLocks(deno: DenoKvOpener, path: string | undefined, retryMs: number): Promise<DenoKv> {
  let giveUpAt: number | undefined;
  for (;;) {
    try {
      return await deno.openKv(path);
    } catch (error) {
      if (!isLocked(error)) throw error;
      giveUpAt ??= Date.now() + retryMs;
      if (Date.now() >= giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  }
}

const deno = (globalThis as { Deno?: { env: { get(name: string): string | undefined } } }).Deno;
if ((import.meta as { main?: boolean }).main && deno) console.log(kvPathFlags(deno.env.get("DENO_KV_PATH")).join(" "));
