import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { UsageError } from "../lib/cli.ts";
import { descendants, pinNote, pinning, pinProcess } from "./pin.ts";

const allowedCpus = (pid: number) => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];

/** A process that starts one of its own, both waiting: a server and the child it starts. */
function parentAndChild(): { parent: ChildProcess; child: Promise<number> } {
  const script = `const c = require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
process.stdout.write(String(c.pid)); setTimeout(() => c.kill(), 30000);`;
  const parent = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "ignore"] });
  const child = new Promise<number>((resolve) => parent.stdout!.once("data", (data) => resolve(Number(String(data)))));
  return { parent, child };
}

describe("--pin", () => {
  const started = parentAndChild();
  afterAll(async () => {
    process.kill(await started.child);
    started.parent.kill();
  });

  it("finds every process this one started, and the ones they started", async () => {
    const child = await started.child;
    const found = descendants(process.pid);
    expect(found).toContain(started.parent.pid);
    expect(found).toContain(child);
    expect(found).not.toContain(process.pid);
  });

  it("pins every thread of a process to the CPUs given", async () => {
    // The last CPU this process may run on: one every machine has.
    const cpu = allowedCpus(process.pid)!.split(/[,-]/).at(-1)!;
    pinProcess(started.parent.pid!, cpu);
    expect(allowedCpus(started.parent.pid!)).toBe(cpu);
  });

  it("puts the bench on CPU 0 and the servers on the rest, or refuses in one line", () => {
    expect(pinning(2)).toEqual({ bench: "0", servers: "1" });
    expect(pinning(8)).toEqual({ bench: "0", servers: "1-7" });
    expect(() => pinning(1)).toThrow(new UsageError("--pin: needs 2 CPUs or more, this machine has 1"));
  });

  it("says in the report where client and servers ran", () => {
    expect(pinNote({ bench: "0", servers: "1" })).toContain("load generator, database endpoint) on CPU 0");
    expect(pinNote(undefined)).toMatch(/^Not pinned/);
  });
});
