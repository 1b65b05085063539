import { describe, expect, it, vi } from "vitest";
import { withDeadline } from "./deadline.ts";

describe("a call with a deadline", () => {
  it("answers what the call answers in time", async () => {
    expect(await withDeadline(async () => "answer", 1_000)).toBe("answer");
  });

  it("past the deadline, rejects with a TimeoutError and aborts the call's signal with it", async () => {
    let given: AbortSignal | undefined;
    const pending = withDeadline((signal) => {
      given = signal;
      return new Promise(() => {});
    }, 20);
    const error = await pending.catch((rejection: unknown) => rejection);
    expect(error).toMatchObject({ name: "TimeoutError", message: "no answer within 20 ms" });
    expect(given?.aborted).toBe(true);
    expect(given?.reason).toBe(error);
  });

  it("hands a signal only to a call that declares a parameter for it", async () => {
    const given: unknown[] = [];
    await withDeadline(async (...args: unknown[]) => given.push(args.length), 1_000);
    await withDeadline(async (signal) => given.push(signal instanceof AbortSignal), 1_000);
    expect(given).toEqual([0, true]);
  });

  it("answers a call that throws before it returns as a rejection", async () => {
    const throwing = (): Promise<never> => {
      throw new Error("refused");
    };
    await expect(withDeadline(throwing, 1_000)).rejects.toThrow("refused");
  });

  it("leaves no timer pending once the answer is in (js-compute ends an instance that does)", async () => {
    vi.useFakeTimers();
    try {
      expect(await withDeadline(async () => "answer", 5_000)).toBe("answer");
      await expect(withDeadline(async () => Promise.reject(new Error("refused")), 5_000)).rejects.toThrow("refused");
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
