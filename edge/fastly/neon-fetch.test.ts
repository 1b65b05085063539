import { describe, expect, it } from "vitest";
import { installAbortSignal } from "./abort-signal.ts";
import { fetchThroughBackend } from "./neon-fetch.ts";

describe("the Neon client's fetch on Fastly", () => {
  it("sends every request to the named backend, without the signal Compute would ignore", async () => {
    const seen: unknown[] = [];
    const send = (async (input: unknown, init: unknown) => {
      seen.push([input, init]);
      return new Response("ok");
    }) as typeof fetch;
    const controller = new AbortController();
    const response = await fetchThroughBackend("neon", send)("http://db/sql", {
      method: "POST",
      body: "{}",
      signal: controller.signal,
    });
    expect(await response.text()).toBe("ok");
    expect(seen).toEqual([["http://db/sql", { method: "POST", body: "{}", backend: "neon" }]]);
  });

  it("honours the signal: an abort rejects with its reason while the backend is silent", async () => {
    const never = (() => new Promise<Response>(() => {})) as typeof fetch;
    const controller = new AbortController();
    const pending = fetchThroughBackend("neon", never)("http://db/sql", { signal: controller.signal });
    controller.abort(new Error("too slow"));
    await expect(pending).rejects.toThrow("too slow");
    await expect(fetchThroughBackend("neon", never)("http://db/sql", { signal: controller.signal })).rejects.toThrow(
      "too slow",
    );
  });

  it("works with the AbortController installed for Compute", async () => {
    const scope: Record<string, unknown> = {};
    installAbortSignal(scope);
    const controller = new (scope.AbortController as typeof AbortController)();
    const never = (() => new Promise<Response>(() => {})) as typeof fetch;
    const pending = fetchThroughBackend("neon", never)("http://db/sql", { signal: controller.signal });
    controller.abort(new DOMException("no answer", "TimeoutError"));
    await expect(pending).rejects.toMatchObject({ name: "TimeoutError" });
  });
});
