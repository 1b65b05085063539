// How spans leave a platform after its response: in a batch a response holds open (Workers), each
// response's own at once (Compute), or by the SDK's own timer (Node, Deno).
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../core/log.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { keptExports } from "../../test/support/kept-exports.ts";
import { TRACED } from "../../test/support/traced-app.ts";
import { BATCH_DELAY_MS, createTelemetry, type TelemetryParts } from "./telemetry.ts";

describe("after a response", () => {
  afterEach(() => void vi.useRealTimers());

  /** Telemetry whose exports are counted: the names of the spans in each, in order. */
  function exportsOf(afterResponse: TelemetryParts["afterResponse"]) {
    const { exports, send } = keptExports();
    const telemetry = createTelemetry(parseSettings(TRACED), {
      runtime: "cloudflare",
      logger: silentLogger,
      fetch: send,
      afterResponse,
    })!;
    const respond = (name: string) => {
      telemetry.tracer.startSpan(name).end();
      return telemetry.afterResponse!();
    };
    const names = () => exports.map((spans) => spans.map((span) => span.name));
    return { names, respond };
  }

  it("sends one batch for every response that ends while it is open, held by the first (Workers), the next in another", async () => {
    vi.useFakeTimers();
    const { names, respond } = exportsOf("shared-batch");
    const first = respond("one");
    expect(first).toBeInstanceOf(Promise);
    await vi.advanceTimersByTimeAsync(BATCH_DELAY_MS / 2);
    // The first response holds the batch alive: the second hands its platform nothing to wait for.
    expect(respond("two")).toBeUndefined();
    expect(names()).toEqual([]);
    await vi.advanceTimersByTimeAsync(BATCH_DELAY_MS / 2);
    await first;
    expect(names()).toEqual([["one", "two"]]);
    const third = respond("three");
    expect(third).toBeInstanceOf(Promise);
    await vi.advanceTimersByTimeAsync(BATCH_DELAY_MS);
    await third;
    expect(names()).toEqual([["one", "two"], ["three"]]);
  });

  it("sends each response's own spans at once where no timer may be left behind (Compute)", async () => {
    const { names, respond } = exportsOf("own-spans");
    await respond("one");
    await respond("two");
    expect(names()).toEqual([["one"], ["two"]]);
  });

  it("is not set where the SDK's own timer sends batches (Node, Deno)", () => {
    const telemetry = createTelemetry(parseSettings(TRACED), { runtime: "node", logger: silentLogger })!;
    expect(telemetry.afterResponse).toBeUndefined();
  });
});
