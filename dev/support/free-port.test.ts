import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { refusedPort } from "./free-port.ts";

describe("refusedPort", () => {
  it("is refused, and outside the range a server listening on port 0 is handed a port from", async () => {
    const port = await refusedPort();
    const refusal = await new Promise<NodeJS.ErrnoException>((resolve) =>
      connect(port, "127.0.0.1")
        .once("error", resolve)
        .once("connect", () => resolve(new Error("connected"))),
    );
    expect(refusal.code).toBe("ECONNREFUSED");
    const range = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").catch(() => "32768");
    expect(port).toBeLessThan(Number.parseInt(range, 10));
    expect(port).toBeGreaterThanOrEqual(1024);
  });
});
