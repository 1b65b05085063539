import { describe, expect, it } from "vitest";
import { createDeferredLogger } from "./log.ts";

/** A deferred logger writing into arrays, its timer run by hand. */
function heldLogger() {
  const written: { stream: "info" | "problem"; text: string }[] = [];
  const timers: (() => void)[] = [];
  const logger = createDeferredLogger(
    {
      info: (text) => written.push({ stream: "info", text }),
      problem: (text) => written.push({ stream: "problem", text }),
    },
    (write) => timers.push(write),
  );
  return { logger, written, timers };
}

const linesOf = (text: string) => text.split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);

describe("the deferred logger", () => {
  it("writes a turn's info lines together once its timer fires, one JSON object per line", () => {
    const { logger, written, timers } = heldLogger();
    logger.log("info", "request", { requestId: "r1", route: "/a\nb" });
    logger.log("info", "request", { requestId: "r2" });
    expect(written).toEqual([]);
    expect(timers).toHaveLength(1);
    timers[0]!();
    expect(written).toHaveLength(1);
    expect(linesOf(written[0]!.text)).toEqual([
      { time: expect.any(String), level: "info", event: "request", requestId: "r1", route: "/a\nb" },
      { time: expect.any(String), level: "info", event: "request", requestId: "r2" },
    ]);
  });

  it("stamps a line with the time it was logged, not written", () => {
    const { logger, written, timers } = heldLogger();
    const logged = Date.now();
    logger.log("info", "request");
    while (Date.now() < logged + 5) {} // the write comes at least 5 ms later
    timers[0]!();
    const [entry] = linesOf(written[0]!.text);
    expect(Date.parse(entry!.time as string)).toBeLessThan(logged + 5);
  });

  it("writes a warning or an error at once, after the lines pending before it", () => {
    const { logger, written, timers } = heldLogger();
    logger.log("info", "request", { requestId: "r1" });
    logger.log("error", "unhandled_error", { requestId: "r1" });
    expect(written.map(({ stream, text }) => [stream, JSON.parse(text).event])).toEqual([
      ["info", "request"],
      ["problem", "unhandled_error"],
    ]);
    timers[0]!();
    expect(written).toHaveLength(2);
  });

  it("flushes what is pending at once, and the next line waits for a timer of its own", () => {
    const { logger, written, timers } = heldLogger();
    logger.log("info", "request", { requestId: "r1" });
    logger.flush();
    expect(linesOf(written[0]!.text)[0]).toMatchObject({ requestId: "r1" });
    timers[0]!();
    expect(written).toHaveLength(1);
    logger.log("info", "request", { requestId: "r2" });
    expect(timers).toHaveLength(2);
    timers[1]!();
    expect(linesOf(written[1]!.text)[0]).toMatchObject({ requestId: "r2" });
  });
});
