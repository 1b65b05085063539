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

/** Opens the KV database, or throws a SettingsError naming DENO_KV_PATH (never its value). */
export async function openKvAt(deno: DenoKvOpener, path: string | undefined): Promise<DenoKv> {
  if (path && path !== IN_MEMORY) {
    for (const name of ["read", "write"] as const) {
      if ((await deno.permissions.query({ name, path })).state !== "granted") {
        throw new SettingsError("DENO_KV_PATH", `needs ${name} access: run it with deno task start, which grants it`);
      }
    }
  }
  try {
    return await deno.openKv(path);
  } catch (error) {
    const reason = error instanceof Error ? error.name : "error";
    throw new SettingsError("DENO_KV_PATH", `cannot be opened (${reason}): its folder must exist and be writable`);
  }
}

const deno = (globalThis as { Deno?: { env: { get(name: string): string | undefined } } }).Deno;
if ((import.meta as { main?: boolean }).main && deno) console.log(kvPathFlags(deno.env.get("DENO_KV_PATH")).join(" "));
