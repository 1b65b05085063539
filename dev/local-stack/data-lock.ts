// One process at a time per embedded data folder. PGlite has no lock of its own: two processes on
// one folder hand out the same document numbers and then corrupt it, and even a second process
// that only opens the folder before failing can leave it unreadable. The lock is taken before
// anything opens the folder and names its holder; a holder that died is detected and replaced.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { mkdir, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

export interface DataLock {
  path: string;
  release(): void;
}

/** The folder is held by a live process. */
export class DataFolderLockedError extends Error {
  constructor(
    readonly folder: string,
    readonly holder: LockHolder,
  ) {
    super(
      `The data folder ${folder} is in use by process ${holder.pid}` +
        `${holder.command ? ` (${holder.command})` : ""}; stop it first, or set PGLITE_DATA_DIR to another folder.`,
    );
    this.name = "DataFolderLockedError";
  }
}

interface LockHolder {
  pid: number;
  command?: string;
}

// Locks this process holds: a second stack in the same process is refused like another process.
const heldHere = new Set<string>();

/** Takes `<folder>.lock` (next to the folder, so the folder itself stays PGlite's alone). */
export async function lockDataFolder(folder: string, command = process.argv.slice(1).join(" ")): Promise<DataLock> {
  const path = `${await realFolder(folder)}.lock`;
  if (heldHere.has(path)) throw new DataFolderLockedError(folder, { pid: process.pid, command: "this process" });
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, command }));
      closeSync(fd);
      heldHere.add(path);
      return {
        path,
        release: () => {
          heldHere.delete(path);
          releaseIfOurs(path);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = readHolder(path);
    // Our own pid in a lock we do not hold: left by an earlier process that had this pid.
    if (holder && holder.pid !== process.pid && isAlive(holder.pid)) throw new DataFolderLockedError(folder, holder);
    // Stale (its process is gone) or unreadable (crashed while writing it): take it over. Two
    // processes doing so at once must not remove each other's new lock: one takes over at a time.
    // An unreadable lock may be one being written this instant: only an old one is stale.
    if (holder || Date.now() - statMtime(path) > 2_000) removeStale(path, holder);
    await new Promise((done) => setTimeout(done, 50 * (attempt + 1)));
  }
  throw new Error(`could not take the lock ${path}`);
}

/**
 * Where the folder really is, links followed (made first if need be): two names for one folder
 * must take one lock. A folder not made yet is named by its parent's real place.
 */
async function realFolder(folder: string): Promise<string> {
  const absolute = resolve(folder);
  await mkdir(dirname(absolute), { recursive: true });
  try {
    return await realpath(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return join(await realpath(dirname(absolute)), basename(absolute));
  }
}

function removeStale(path: string, stale: LockHolder | undefined): void {
  const guard = `${path}.takeover`;
  let fd: number;
  try {
    fd = openSync(guard, "wx");
  } catch {
    if (Date.now() - statMtime(guard) > 10_000) unlinkIfPresent(guard); // left by a crash mid-takeover
    return;
  }
  try {
    if (readHolder(path)?.pid === stale?.pid) unlinkIfPresent(path); // still the stale one
  } finally {
    closeSync(fd);
    unlinkIfPresent(guard);
  }
}

function statMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    return typeof parsed.pid === "number" ? { pid: parsed.pid, command: parsed.command } : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, but someone else's
  }
}

function releaseIfOurs(path: string): void {
  if (readHolder(path)?.pid === process.pid) unlinkIfPresent(path);
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
