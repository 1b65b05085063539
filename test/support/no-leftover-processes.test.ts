// The run's last check (no-leftover-processes.ts) finds a process the tests left behind, however
// far down it was started, and only while it lives.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { processesMarked, TEST_RUN_VARIABLE } from "./no-leftover-processes.ts";
import { isLoopback, listeningSockets } from "./proc.ts";

it("finds a grandchild carrying the run's marker, in a group of its own, until it is gone", async () => {
  const run = randomUUID();
  const shell = spawn("sh", ["-c", "sleep 30 & echo $!; wait"], {
    env: { ...process.env, [TEST_RUN_VARIABLE]: run },
    stdio: ["ignore", "pipe", "ignore"],
    detached: true,
  });
  const sleeper = Number(
    await new Promise<string>((resolve) => shell.stdout!.once("data", (data) => resolve(`${data}`))),
  );
  try {
    expect(processesMarked(run)).toEqual(expect.arrayContaining([shell.pid, sleeper]));
    expect(processesMarked(randomUUID())).toEqual([]);
  } finally {
    process.kill(-shell.pid!, "SIGKILL");
  }
  await expect.poll(() => processesMarked(run)).toEqual([]);
});

it("finds the sockets a process listens on, and tells loopback from every interface", async () => {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as { port: number }).port;
    const socket = listeningSockets([process.pid]).find(({ address }) => address.endsWith(`:${hex(port)}`));
    expect(socket).toEqual({ address: `0100007F:${hex(port)}`, loopback: true });
  } finally {
    server.close();
  }
  // As /proc/net/tcp{,6} write them: 0.0.0.0, ::, 10.0.0.1 and ::ffff:10.0.0.1 are not loopback.
  for (const address of [
    "0100007F:1F90",
    "00000000000000000000000001000000:1F90",
    "0000000000000000FFFF00000100007F:1F90",
  ]) {
    expect(isLoopback(address), address).toBe(true);
  }
  for (const address of [
    "00000000:1F90",
    "00000000000000000000000000000000:1F90",
    "0100000A:1F90",
    "0000000000000000FFFF00000100000A:1F90",
  ]) {
    expect(isLoopback(address), address).toBe(false);
  }
});

const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
