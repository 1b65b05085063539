// One caller, two runtimes, one trace: a client that sends its traceparent with each call (the
// typed client's `headers`) finds every runtime's server span in its trace, under the call that
// made it; and a trace the caller left out is left out by every runtime. Node exports as
// protobuf, workerd as JSON: the real collector takes both.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createClient } from "../../client/index.ts";
import { SUITE_STARTUP_TIMEOUT_MS } from "../../dev/launchers/child-server.ts";
import { launchRuntime, type RunningRuntime } from "../../dev/launchers/index.ts";
import { type LocalStack, startLocalStack } from "../../dev/local-stack/stack.ts";
import {
  COLLECTOR_MISSING,
  type CollectedSpan,
  type Collector,
  collectorInstalled,
  SPAN_KIND_SERVER,
  startCollector,
} from "../../dev/support/collector.ts";
import { describeNeeding } from "../../dev/support/required-tool.ts";
import { signToken, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const LINK = "/v1/links/{provider}/{externalAccountId}";

const missing = collectorInstalled() ? undefined : COLLECTOR_MISSING;

describeNeeding("the OpenTelemetry Collector", missing, "one trace across runtimes", () => {
  let stack: LocalStack | undefined;
  let collector: Collector | undefined;
  let workers: RunningRuntime | undefined;
  let node: RunningRuntime | undefined;

  beforeAll(async () => {
    collector = await startCollector();
    stack = await startLocalStack();
    const settings = {
      ...stack.settings,
      AUTH_SECRET: TEST_AUTH_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_SERVICE_NAME: "across",
    };
    workers = await launchRuntime("cloudflare", settings, { port: 0 });
    node = await launchRuntime("node", { ...settings, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }, { port: 0 });
  }, SUITE_STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await node?.close();
    await workers?.close();
    await stack?.close();
    await collector?.stop();
  });

  /** The server spans of `traceId` once `count` have arrived (or what there is after 20 s). */
  async function serverSpans(traceId: string, count: number): Promise<CollectedSpan[]> {
    let spans: CollectedSpan[] = [];
    await expect
      .poll(
        () => {
          spans = collector!.spans().filter((span) => span.traceId === traceId && span.kind === SPAN_KIND_SERVER);
          return spans.length;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBeGreaterThanOrEqual(count);
    return spans;
  }

  it("keeps one trace when the caller sends its traceparent to each runtime, under the call that made each request", async () => {
    const token = await signToken({ sub: "alice", tid: `across-${hex(4)}` });
    const onWorkers = createClient({ baseUrl: workers!.url, token });
    const onNode = createClient({ baseUrl: node!.url, token });
    const traceId = hex(16);
    const [written, read] = [hex(8), hex(8)];
    const context = (parent: string) => ({ traceparent: `00-${traceId}-${parent}-01`, tracestate: "caller=1" });
    const link = { path: { provider: "github", externalAccountId: hex(4) } };

    // Written through one runtime, read through the other: the database is the two's.
    const put = await onWorkers.PUT(LINK, { params: link, headers: context(written) });
    expect(put.response.status).toBe(201);
    const get = await onNode.GET(LINK, { params: link, headers: context(read) });
    expect(get.response.status).toBe(200);

    const spans = await serverSpans(traceId, 2);
    const byRuntime = Object.fromEntries(spans.map((span) => [span.resource["edge.runtime"], span]));
    expect(byRuntime.cloudflare).toMatchObject({
      name: "PUT /v1/links/{provider}/{externalAccountId}",
      parentSpanId: written,
      traceState: "caller=1",
    });
    expect(byRuntime.node).toMatchObject({
      name: "GET /v1/links/{provider}/{externalAccountId}",
      parentSpanId: read,
      traceState: "caller=1",
    });
    // Each runtime's statements under its own request's span, in the same trace.
    const statements = collector!
      .spans()
      .filter((span) => span.traceId === traceId && span.attributes["db.system.name"]);
    expect(statements.length).toBeGreaterThan(0);
    const servers = new Set(spans.map((span) => span.spanId));
    for (const statement of statements) expect(servers.has(statement.parentSpanId), statement.name).toBe(true);
  });

  it("leaves out on every runtime a trace the caller left out, each line naming it", async () => {
    const printed = vi.spyOn(console, "log");
    try {
      const token = await signToken({ sub: "bob", tid: `across-${hex(4)}` });
      const leftOut = hex(16);
      const marker = hex(16);
      for (const runtime of [workers!, node!]) {
        const client = createClient({ baseUrl: runtime.url, token });
        const answer = await client.GET("/v1/me/links", {
          headers: { traceparent: `00-${leftOut}-${hex(8)}-00`, "x-request-id": `left-out-${runtime.runtime}` },
        });
        expect(answer.response.status).toBe(200);
        // Sent after it: once its span has arrived, whatever the first was to send has too.
        await fetch(`${runtime.url}/healthz`, { headers: { traceparent: `00-${marker}-${hex(8)}-01` } }).then((r) =>
          r.arrayBuffer(),
        );
      }
      await serverSpans(marker, 2);
      expect(collector!.spans().filter((span) => span.traceId === leftOut)).toEqual([]);
      const lines = () =>
        printed.mock.calls
          .flatMap(([text]) => String(text).split("\n"))
          .filter((line) => line.includes('"left-out-'))
          .map((line) => JSON.parse(line.slice(line.indexOf("{"))));
      await expect.poll(() => lines().length, { timeout: 10_000 }).toBe(2);
      for (const line of lines()) expect(line).toMatchObject({ trace_id: leftOut, trace_flags: "00" });
    } finally {
      printed.mockRestore();
    }
  });
});
