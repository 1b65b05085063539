import { describe, expect, it } from "vitest";
import { installAbortSignal } from "./abort-signal.ts";

function installed() {
  const scope: Record<string, unknown> = {};
  installAbortSignal(scope);
  return {
    Signal: scope.AbortSignal as typeof AbortSignal,
    Controller: scope.AbortController as typeof AbortController,
  };
}

describe("AbortSignal for Compute", () => {
  it("is installed only where missing", () => {
    const scope = { AbortSignal: "native", AbortController: "native" };
    installAbortSignal(scope);
    expect(scope).toEqual({ AbortSignal: "native", AbortController: "native" });
  });

  it("a controller aborts its signal once, with the reason, telling listeners and onabort", () => {
    const { Controller } = installed();
    const controller = new Controller();
    const events: string[] = [];
    controller.signal.addEventListener("abort", () => events.push("listener"));
    controller.signal.onabort = () => events.push("onabort");
    expect(controller.signal.aborted).toBe(false);
    controller.abort("first");
    controller.abort("second");
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe("first");
    expect(events).toEqual(["onabort", "listener"]);
    expect(() => controller.signal.throwIfAborted()).toThrow();
  });

  it("the default reason is an AbortError; AbortSignal.abort() is already aborted", () => {
    const { Signal, Controller } = installed();
    const controller = new Controller();
    controller.abort();
    expect(controller.signal.reason).toMatchObject({ name: "AbortError" });
    expect(Signal.abort("why").reason).toBe("why");
  });
});
