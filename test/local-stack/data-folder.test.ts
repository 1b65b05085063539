// The embedded data folder belongs to one process at a time: a second `npm start` or `npm run
// migrate` refuses before opening anything and names the holder; a lock left by a killed process
// is taken over; a stop releases it and leaves a folder that opens again.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataFolderLockedError, lockDataFolder } from "../../dev/local-stack/data-lock.ts";
import { runScript, startServer, watch } from "./processes.ts";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "data-folder-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

// pg_control's `state` (after system identifier, control version and catalog version):
// 1 = shut down cleanly; 6 = in production, i.e. never closed.
const DB_SHUTDOWNED = 1;
function controlFileState(folder: string): number {
  return readFileSync(join(folder, "global", "pg_control")).readUInt32LE(16);
}

/** A pid that surely belongs to no running process: one that just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

describe("the data folder lock", () => {
  it("refuses a second holder in the same process, naming it, until released", async () => {
    const folder = join(root, "same-process");
    const lock = await lockDataFolder(folder);
    await expect(lockDataFolder(folder)).rejects.toBeInstanceOf(DataFolderLockedError);
    lock.release();
    (await lockDataFolder(folder)).release();
    expect(existsSync(`${folder}.lock`)).toBe(false);
  });

  it("is one lock however the folder is named: through a link to it, or to a folder above it", async () => {
    const real = join(root, "linked");
    await mkdir(join(real, "data"), { recursive: true });
    await symlink(join(real, "data"), join(root, "link-to-data"));
    await symlink(real, join(root, "link-to-parent"));
    const lock = await lockDataFolder(join(real, "data"));
    for (const alias of [join(root, "link-to-data"), join(root, "link-to-parent", "data")]) {
      await expect(lockDataFolder(alias)).rejects.toBeInstanceOf(DataFolderLockedError);
    }
    lock.release();
    // A folder not made yet is named by where it will be: its parent's real place.
    const unmade = await lockDataFolder(join(root, "link-to-parent", "unmade"));
    await expect(lockDataFolder(join(real, "unmade"))).rejects.toBeInstanceOf(DataFolderLockedError);
    unmade.release();
  });

  it("takes over a lock whose process is gone", async () => {
    const folder = join(root, "stale");
    await writeFile(`${folder}.lock`, JSON.stringify({ pid: deadPid(), command: "killed" }));
    const lock = await lockDataFolder(folder);
    lock.release();
  });

  it("refuses a second npm start and npm run migrate while npm start runs, naming its pid; a stop frees it", async () => {
    const folder = join(root, "served");
    const first = await startServer({ PGLITE_DATA_DIR: folder });
    try {
      const second = runScript("dev/local-stack/start.ts", ["--port", "0"], { PGLITE_DATA_DIR: folder });
      const secondRun = watch(second);
      expect(await secondRun.exited).toBe(1);
      expect(secondRun.output()).toContain(`in use by process ${first.child.pid}`);
      expect(secondRun.output()).not.toContain("listening on");

      const migrate = runScript("dev/local-stack/migrate-cli.ts", [], { PGLITE_DATA_DIR: folder });
      const migrateRun = watch(migrate);
      expect(await migrateRun.exited).toBe(1);
      expect(migrateRun.output()).toContain(`in use by process ${first.child.pid}`);
      // The first one was not disturbed.
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      first.child.kill("SIGTERM");
    }
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain("SIGTERM: stopping");
    expect(existsSync(`${folder}.lock`)).toBe(false);
    expect(controlFileState(folder)).toBe(DB_SHUTDOWNED); // closed cleanly, not left "interrupted"
    const again = watch(runScript("dev/local-stack/migrate-cli.ts", [], { PGLITE_DATA_DIR: folder }));
    expect(await again.exited).toBe(0);
    expect(again.output()).toContain("Nothing to apply");
  }, 90_000);

  it("refuses a second npm start on a taken port before opening any database", async () => {
    const first = await startServer({ PGLITE_DATA_DIR: join(root, "port-a") });
    try {
      const port = new URL(first.url).port;
      const folder = join(root, "port-b");
      const second = watch(runScript("dev/local-stack/start.ts", ["--port", port], { PGLITE_DATA_DIR: folder }));
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`Port ${port} on 127.0.0.1 is already in use`);
      expect(existsSync(folder)).toBe(false); // nothing was created, let alone opened
    } finally {
      first.child.kill("SIGTERM");
      await first.exited;
    }
  }, 90_000);

  it("prints usage and exits 0 on --help, doing nothing", async () => {
    for (const script of [
      "dev/local-stack/start.ts",
      "dev/local-stack/migrate-cli.ts",
      "dev/local-stack/reset.ts",
      "test/hardening/soak-cli.ts",
    ]) {
      const folder = join(root, "help");
      const run = watch(runScript(script, ["--help"], { PGLITE_DATA_DIR: folder }));
      expect(await run.exited, script).toBe(0);
      expect(run.output(), script).toMatch(/^Usage: npm /);
      expect(existsSync(folder), script).toBe(false);
    }
  }, 60_000);

  it("npm run reset deletes the folder, and refuses while a process holds it", async () => {
    const folder = join(root, "reset");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "PG_VERSION"), "18");
    const lock = await lockDataFolder(folder);
    const refused = watch(runScript("dev/local-stack/reset.ts", [], { PGLITE_DATA_DIR: folder }));
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain(`in use by process ${process.pid}`);
    expect(existsSync(join(folder, "PG_VERSION"))).toBe(true);
    lock.release();
    const reset = watch(runScript("dev/local-stack/reset.ts", [], { PGLITE_DATA_DIR: folder }));
    expect(await reset.exited).toBe(0);
    expect(reset.output()).toContain(`Deleted ${folder}`);
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(`${folder}.lock`)).toBe(false);
    const again = watch(runScript("dev/local-stack/reset.ts", [], { PGLITE_DATA_DIR: folder }));
    expect(await again.exited).toBe(0);
    expect(again.output()).toContain(`Nothing to delete: ${folder} does not exist`);
    expect(again.output()).not.toContain("Deleted");
    // npm start serves DATABASE_URL's PostgreSQL while it is set, which reset leaves alone.
    const served = { PGLITE_DATA_DIR: folder, DATABASE_URL: "postgres://postgres@127.0.0.1:5432/app" };
    const elsewhere = watch(runScript("dev/local-stack/reset.ts", [], served));
    expect(await elsewhere.exited).toBe(0);
    expect(elsewhere.output()).toContain("the next npm start without DATABASE_URL begins with an empty database");
  }, 60_000);

  it("npm run reset leaves alone a folder holding anything but a database (PGLITE_DATA_DIR=. or a typo)", async () => {
    const folder = join(root, "not-a-database");
    await mkdir(join(folder, "src"), { recursive: true });
    await writeFile(join(folder, "src", "notes.txt"), "mine");
    await writeFile(join(folder, "PG_VERSION"), "18"); // a database put beside them is no excuse
    const reset = watch(runScript("dev/local-stack/reset.ts", [], { PGLITE_DATA_DIR: folder }));
    expect(await reset.exited).toBe(1);
    expect(reset.output().trim().split("\n")).toEqual([expect.stringContaining(`${folder} holds "src"`)]);
    expect(existsSync(join(folder, "src", "notes.txt"))).toBe(true);
    expect(existsSync(`${folder}.lock`)).toBe(false);
  }, 60_000);
});
