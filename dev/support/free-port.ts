import { readFile } from "node:fs/promises";
import { createServer } from "node:net";

/** A loopback port nothing listens on right now: for a server to take. */
export function freePort(): Promise<number> {
  return listenOnce(0);
}

/**
 * A loopback port nothing listens on, for a client to find refused. Below the kernel's ephemeral
 * range: a port `freePort()` hands out is free again at once, and the next server that listens on
 * port 0 may be given it, so a request meant to be refused reaches that server instead.
 */
export async function refusedPort(): Promise<number> {
  for (let port = (await ephemeralRangeStart()) - 1; port >= 1024; port--) {
    const free = await listenOnce(port).catch(() => undefined);
    if (free !== undefined) return free;
  }
  throw new Error("no loopback port below the ephemeral range is free");
}

/** Where Linux starts handing out ports (ip_local_port_range); elsewhere 32768, below IANA's 49152 too. */
async function ephemeralRangeStart(): Promise<number> {
  const range = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").catch(() => "32768");
  return Number.parseInt(range, 10) || 32768;
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address() as { port: number };
      server.close(() => resolve(address.port));
    });
  });
}
