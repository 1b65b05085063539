// A Workers cron run with traces on: its statements and its exports are subrequests of one
// invocation, which WORKERS_SUBREQUESTS bounds (edge/cloudflare/settings.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { createBackground } from "../../core/background/runner.ts";
import { CAPABILITY_JOBS } from "../../core/capabilities.ts";
import { silentLogger } from "../../core/log.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { growingFeedSql } from "../../test/support/link-feed.ts";
import { type Bindings, invocationLimits } from "../cloudflare/settings.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { createTelemetry } from "./telemetry.ts";

/** A collector's stand-in behind `fetch`: the names of the spans in each export it is sent. */
function keptExports() {
  const exports: string[][] = [];
  const send = (async (_url: string, init: RequestInit) => {
    const body = JSON.parse(new TextDecoder().decode(init.body as Uint8Array));
    exports.push(body.resourceSpans[0].scopeSpans[0].spans.map((span: { name: string }) => span.name));
    return new Response(null, { status: 200 });
  }) as typeof fetch;
  return { exports, send };
}

describe("a Workers cron run", () => {
  afterEach(() => void vi.useRealTimers());

  it("makes no more subrequests than WORKERS_SUBREQUESTS, its statements and its trace exports together", async () => {
    vi.useFakeTimers();
    const { exports, send } = keptExports();
    const settings = parseSettings({
      AUTH_SECRET: TEST_AUTH_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
    });
    const telemetry = createTelemetry(settings, {
      runtime: "cloudflare",
      logger: silentLogger,
      fetch: send,
      afterResponse: "shared-batch",
    })!;
    // A feed written to all minute: each run of the cron reads a few pages.
    const { sql, statements } = growingFeedSql(80);
    const background = createBackground(
      { sql, kv: createMemoryKv(), settings, logger: silentLogger, telemetry },
      {
        jobs: CAPABILITY_JOBS,
        limits: invocationLimits({} as Bindings), // WORKERS_SUBREQUESTS unset: 50, the Free plan's
        // Its statements take no time; the minute passes between its runs.
        sleep: async (ms) => void (await vi.advanceTimersByTimeAsync(ms)),
      },
    );
    // As edge/cloudflare/index.ts's `scheduled` runs it.
    await background.runFor(60_000).finally(telemetry.flush);
    expect(statements()).toBeGreaterThan(40); // the minute's budget, nearly all spent
    expect(statements() + exports.length).toBeLessThanOrEqual(50);
    // Sent all the same, when the cron run ends: each run's trace.
    expect(exports.flat().filter((name) => name === "background run")).toHaveLength(6);
  });
});
