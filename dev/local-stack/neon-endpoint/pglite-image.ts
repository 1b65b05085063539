// A new PGlite cluster as its initdb leaves it, kept as PGlite's own data-folder tarball: an
// in-memory database loads it instead of running initdb again, which most of a start's time was
// (every local stack: `npm start`, each suite's databases). One image per PGlite version in the
// project's .cache/ (ignored by git), written under a temporary name and renamed, so processes
// starting at once share it and none reads half of one.
import { randomUUID } from "node:crypto";
import { access, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";

const CACHE_DIR = fileURLToPath(new URL("../../../.cache/pglite/", import.meta.url));

/** The kept image's path, or the image itself where it could not be kept; at most one making per process. */
let image: Promise<string | Blob> | undefined;

/** The new-cluster tarball for the installed PGlite: read from the cache, or made and cached once. */
export async function newClusterImage(): Promise<Blob> {
  image ??= keptOrMade().catch((error: unknown) => {
    image = undefined;
    throw error;
  });
  const found = await image;
  if (typeof found !== "string") return found;
  // Read at each start rather than held: a long-running process would keep 40 MB for nothing.
  const bytes = await readFile(found).catch(() => undefined);
  if (bytes) return new Blob([new Uint8Array(bytes)]);
  // Gone or unreadable since (a cleaned cache): this start makes its own, the next looks again.
  image = undefined;
  return madeImage();
}

async function keptOrMade(): Promise<string | Blob> {
  const path = await imagePath();
  const kept = await access(path).then(
    () => true,
    () => false,
  );
  if (kept) return path;
  const made = await madeImage();
  // Only a cache: a folder that cannot be written costs the next start its initdb, nothing more.
  return keep(made, path).then(
    () => path,
    () => made,
  );
}

async function madeImage(): Promise<Blob> {
  const db = await PGlite.create();
  try {
    return await db.dumpDataDir("none");
  } finally {
    await db.close();
  }
}

async function keep(made: Blob, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${randomUUID()}.partial`;
  try {
    await writeFile(partial, new Uint8Array(await made.arrayBuffer()));
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

/** Where the image of the installed PGlite is kept. */
export async function imagePath(): Promise<string> {
  return join(CACHE_DIR, `pglite-${await pgliteVersion()}.tar`);
}

/** PGlite's version, from the nearest package.json above its entry point (its exports do not list it). */
async function pgliteVersion(): Promise<string> {
  let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    const manifest = await readFile(join(dir, "package.json"), "utf8").catch(() => undefined);
    const { name, version } = manifest ? (JSON.parse(manifest) as { name?: string; version?: string }) : {};
    if (name === "@electric-sql/pglite" && version) return version;
    if (dirname(dir) === dir) throw new Error("PGlite's package.json was not found above its entry point");
    dir = dirname(dir);
  }
}
