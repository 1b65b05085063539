// Background runs with traces on: what a failed sync says, and a Workers cron run, whose
// statements and exports are subrequests of one invocation that WORKERS_SUBREQUESTS bounds.
import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createBackground } from "../../core/background/runner.ts";
import { CAPABILITY_JOBS } from "../../core/capabilities.ts";
import { linkSyncJob } from "../../core/links/jobs.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import { DatabaseUnavailableError, type Sql } from "../../core/ports/sql.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { keptExports } from "../../test/support/kept-exports.ts";
import { growingFeedSql } from "../../test/support/link-feed.ts";
import { type Bindings, invocationLimits } from "../cloudflare/settings.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { createTelemetry } from "./telemetry.ts";

const TRACED = { AUTH_SECRET: TEST_AUTH_SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" };

describe("a sync that fails", () => {
  it("names its job's span in its warning, and that span failed", async () => {
    const { exports, send } = keptExports();
    const settings = parseSettings(TRACED);
    const telemetry = createTelemetry(settings, { runtime: "node", logger: silentLogger, fetch: send })!;
    const lines: Record<string, unknown>[] = [];
    const logger: Logger = { log: (_level, event, fields) => void lines.push({ event, ...fields }) };
    const unreachable = async (): Promise<never> => {
      throw new DatabaseUnavailableError("connection refused");
    };
    const sql: Sql = { query: unreachable, transaction: unreachable };
    await createBackground({ sql, kv: createMemoryKv(), settings, logger, telemetry }, { jobs: [linkSyncJob] }).run();
    await telemetry.flush();
    const job = exports.flat().find((span) => span.name === "job links/sync")!;
    expect(job.status?.code).toBe(SpanStatusCode.ERROR);
    expect(lines.find((line) => line.event === "link_sync_failed")).toMatchObject({
      trace_id: job.traceId,
      span_id: job.spanId,
    });
  });
});

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
    expect(exports.flat().filter((span) => span.name === "background run")).toHaveLength(6);
  });
});
