import { describe, expect, it } from "vitest";
import { silentLogger } from "../log.ts";
import { type StopSignal, stopGracefullyOnSignals } from "./graceful-stop.ts";

function harness(close: () => Promise<void>, graceMs = 1_000) {
  const handlers = new Map<StopSignal, () => void>();
  const exits: number[] = [];
  let closes = 0;
  stopGracefullyOnSignals({
    onSignal: (signal, handler) => handlers.set(signal, handler),
    close: () => {
      closes++;
      return close();
    },
    exit: (code) => exits.push(code),
    graceMs,
    logger: silentLogger,
  });
  return { handlers, exits, closes: () => closes };
}

describe("stopGracefullyOnSignals", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("on %s closes once, then exits 0; a repeat is ignored", async (signal) => {
    let finish: () => void = () => {};
    const { handlers, exits, closes } = harness(() => new Promise<void>((resolve) => (finish = resolve)));
    handlers.get(signal)!();
    handlers.get("SIGTERM")!();
    handlers.get("SIGINT")!();
    expect(closes()).toBe(1);
    expect(exits).toEqual([]);
    finish();
    await expect.poll(() => exits).toEqual([0]);
  });

  it("exits 1 when closing outlasts the grace time, or fails", async () => {
    const slow = harness(() => new Promise<void>(() => {}), 20);
    slow.handlers.get("SIGTERM")!();
    await expect.poll(() => slow.exits).toEqual([1]);
    const failing = harness(() => Promise.reject(new Error("boom")));
    failing.handlers.get("SIGTERM")!();
    await expect.poll(() => failing.exits).toEqual([1]);
  });
});
