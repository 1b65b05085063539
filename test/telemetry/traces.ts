// The README's tour on one runtime, sending traces to a real OpenTelemetry Collector: every
// request carries its own W3C `traceparent`, and its trace is read back from what the collector
// wrote. Then the same tour with the collector stopped midway: every step answers as before.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { SUITE_STARTUP_TIMEOUT_MS as STARTUP_TIMEOUT_MS } from "../../dev/launchers/child-server.ts";
import { launchRuntime, type RunningRuntime, type RuntimeName } from "../../dev/launchers/index.ts";
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
import { bearer, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { matchesExpected, readTour, stepOutputs, type TourStep, tourScript } from "../readme/tour.ts";
import { expectLoggedWithTrace, expectTraceOf, requestLines, type TracedStep } from "./expected-trace.ts";

const ROOT = join(import.meta.dirname, "../..");
// The tour is some twenty requests, each a process or two (curl, npm run token) on a loaded machine.
const TOUR_TIMEOUT_MS = 150_000;

/** What the tour sends that no span may hold: a body's values, an id bound as a parameter. */
const NEVER_RECORDED = ["chair-42", "Order 7", "order-7", "steel", "Bearer", "eyJ"];

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** The tour as another tenant's callers: everything it makes is that tenant's, so it starts afresh. */
const asTenant = (steps: TourStep[], tenant: string): TourStep[] =>
  steps.map(({ command, expected }) => ({
    command: command.replaceAll("--tid acme", `--tid ${tenant}`),
    expected: expected.map((line) => line.replaceAll('"tenantId":"acme"', `"tenantId":"${tenant}"`)),
  }));

/** Each curl of the tour sent with a traceparent of its own, and a tracestate to be carried on. */
function withTraceparents(steps: TourStep[]): TracedStep[] {
  return steps.map((step) => {
    if (!step.command.includes("curl ")) return step;
    const traceId = hex(16);
    const parentId = hex(8);
    const traceState = `tour=${hex(4)},other=1`;
    const command = step.command.replace(
      "curl ",
      `curl -H 'traceparent: 00-${traceId}-${parentId}-01' -H 'tracestate: ${traceState}' `,
    );
    return { ...step, command, traceId, parentId, traceState };
  });
}

/**
 * Runs the tour against `url`; `between(i)` is shell run after step i. Answers what each step
 * printed. Not spawnSync: the Node runtime serves from this very process.
 */
async function runTour(
  steps: TourStep[],
  url: string,
  between: (index: number) => string = () => "",
): Promise<string[]> {
  const env = { ...process.env, AUTH_SECRET: TEST_AUTH_SECRET };
  const script = tourScript(steps, url, between);
  const run = await promisify(execFile)("bash", ["-c", script], { cwd: ROOT, env, encoding: "utf8", timeout: 120_000 });
  return stepOutputs(run.stdout);
}

function expectPrintedAsShown(steps: TourStep[], outputs: string[]): void {
  steps.forEach((step, i) => {
    const output = outputs[i] ?? "";
    expect(matchesExpected(output, step.expected), `$ ${step.command}\n${output}`).toBe(true);
  });
}

async function spansOf(collector: Collector, traceIds: string[], timeoutMs = 20_000): Promise<CollectedSpan[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const spans = collector.spans();
    const served = new Set(spans.filter((span) => span.kind === SPAN_KIND_SERVER).map((span) => span.traceId));
    if (traceIds.every((id) => served.has(id)) || Date.now() > deadline) return spans;
    await new Promise((done) => setTimeout(done, 200));
  }
}

/**
 * The README's tour on `runtime`, twice over one collector, one database and one server: first
 * traced and checked span by span, then as another tenant (so that it answers as the README
 * shows again) with the collector stopped after its third step.
 */
export function tracesOfTour(runtime: RuntimeName): void {
  const missing = collectorInstalled() ? undefined : COLLECTOR_MISSING;
  describeNeeding("the OpenTelemetry Collector", missing, `traces [${runtime}]`, () => {
    const tour = readTour(readFileSync(join(ROOT, "README.md"), "utf8"));
    const steps = withTraceparents(tour);
    let stack: LocalStack | undefined;
    let collector: Collector | undefined;
    let server: RunningRuntime | undefined;

    beforeAll(async () => {
      collector = await startCollector();
      stack = await startLocalStack();
      server = await launchRuntime(
        runtime,
        {
          ...stack.settings,
          AUTH_SECRET: TEST_AUTH_SECRET,
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
          OTEL_EXPORTER_OTLP_HEADERS: "x-tour=traced",
          OTEL_SERVICE_NAME: "tour",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test",
        },
        { port: 0 },
      );
    }, STARTUP_TIMEOUT_MS);

    afterAll(async () => {
      await server?.close();
      await stack?.close();
      await collector?.stop();
    });

    it(
      "continues each request's trace: a server span named by its route, its parts as children",
      async () => {
        // Every runtime's log reaches this process's console: node's from this very process, the
        // others' as the launchers print what their processes write.
        const printed = vi.spyOn(console, "log");
        try {
          expectPrintedAsShown(steps, await runTour(steps, server!.url));
          const traced = steps.filter((step) => step.traceId);
          const spans = await spansOf(
            collector!,
            traced.map((step) => step.traceId!),
          );
          for (const step of traced) expectTraceOf(step, spans, runtime);
          await expectLoggedWithTrace(traced, spans, printed);
          // The refused link names its problem; the first write took a statement on the links table.
          const names = spans.map((span) => [span.name, span.attributes["problem.code"]]);
          expect(names).toContainEqual([
            "PUT /v1/links/{provider}/{externalAccountId}",
            "external_account_already_linked",
          ]);
          expect(spans.some((span) => span.attributes["db.collection.name"] === "linked_external_accounts")).toBe(true);
          expect(spans.some((span) => span.name.startsWith("kv "))).toBe(true);
        } finally {
          printed.mockRestore();
        }
      },
      TOUR_TIMEOUT_MS,
    );

    it(
      "starts its own trace for a malformed traceparent, records nothing its caller left out, names a 404 by its method",
      async () => {
        const printed = vi.spyOn(console, "log");
        try {
          const headers = await bearer({ sub: "alice", tid: "acme" });
          /** Sends a lookup with `extra` headers and an X-Request-Id of its own; answers that id and the status. */
          const send = async (path: string, extra: Record<string, string>) => {
            const requestId = `trace-${hex(8)}`;
            const response = await fetch(`${server!.url}${path}`, {
              headers: { ...headers, ...extra, "x-request-id": requestId },
            });
            await response.arrayBuffer();
            return { requestId, status: response.status };
          };
          const lookup = "/v1/links/github/1234";
          const traceId = hex(16);
          const parentId = hex(8);
          const malformed = [
            `00-${"0".repeat(32)}-${parentId}-01`, // an all-zero trace id
            `ff-${traceId}-${parentId}-01`, // version ff is never valid
            `00-${traceId.toUpperCase()}-${parentId}-01`, // upper-case hex
            `00-${traceId}-${parentId}`, // no flags
          ];
          // What the lookup answers with no traceparent: what it answers with a broken one.
          const plain = await send(lookup, {});
          const sentMalformed: { requestId: string; status: number }[] = [];
          for (const traceparent of malformed) sentMalformed.push(await send(lookup, { traceparent }));
          // Left out by the caller: followed, parentbased_always_on being the default.
          const leftOut = { traceId: hex(16), parentId: hex(8) };
          const unsampled = await send(lookup, { traceparent: `00-${leftOut.traceId}-${leftOut.parentId}-00` });
          const nowhere = await send("/nowhere", { traceparent: `00-${hex(16)}-${hex(8)}-01` });
          // Sent last: once its span has arrived, whatever the ones before it were to send has too.
          const marker = { traceId: hex(16), parentId: hex(8) };
          await send("/healthz", { traceparent: `00-${marker.traceId}-${marker.parentId}-01` });

          expect(plain.status).toBeLessThan(500);
          for (const { status } of [...sentMalformed, unsampled]) expect(status).toBe(plain.status);
          expect(nowhere.status).toBe(404);
          const lineOf = (requestId: string) => requestLines(printed).find((line) => line.requestId === requestId);
          await expect
            .poll(() => [...sentMalformed, unsampled, nowhere].every(({ requestId }) => lineOf(requestId)), {
              timeout: 10_000,
            })
            .toBe(true);
          const spans = await spansOf(collector!, [marker.traceId]);
          const serverOf = (requestId: string) => {
            const line = lineOf(requestId)!;
            return spans.find((span) => span.kind === SPAN_KIND_SERVER && span.spanId === line.span_id);
          };
          for (const [i, { requestId }] of sentMalformed.entries()) {
            const span = serverOf(requestId);
            expect(span, malformed[i]).toBeDefined();
            expect(span!.traceId, malformed[i]).not.toBe(traceId);
            expect(span!.parentSpanId, malformed[i]).toBe("");
            expect(lineOf(requestId), malformed[i]).toMatchObject({ trace_id: span!.traceId, trace_flags: "01" });
          }
          // Its line names the caller's trace, flagged left out; nothing of that trace was sent.
          expect(lineOf(unsampled.requestId)).toMatchObject({ trace_id: leftOut.traceId, trace_flags: "00" });
          expect(spans.filter((span) => span.traceId === leftOut.traceId)).toEqual([]);
          const notFound = serverOf(nowhere.requestId)!;
          expect(notFound.name).toBe("GET");
          expect(notFound.attributes).not.toHaveProperty("http.route");
          expect(notFound.attributes["http.response.status_code"]).toBe(404);
        } finally {
          printed.mockRestore();
        }
      },
      TOUR_TIMEOUT_MS,
    );

    it("records no token, password or statement parameter", () => {
      const text = collector!.text();
      const password = new URL(stack!.settings.DATABASE_URL).password;
      for (const secret of [...NEVER_RECORDED, TEST_AUTH_SECRET, ...(password ? [password] : [])]) {
        expect(text.includes(secret), secret).toBe(false);
      }
    });

    it(
      "answers every step as the README shows, the collector gone after the third",
      async () => {
        const again = withTraceparents(asTenant(tour, "acme-2"));
        // Where spans leave on the exporter's timer (Node, Deno: a batch each second), the first
        // steps' batch is given the time to leave before the collector goes.
        const outputs = await runTour(again, server!.url, (i) =>
          i === 3 ? `sleep 1.5; kill -TERM ${collector!.pid}; sleep 0.5` : "",
        );
        expectPrintedAsShown(again, outputs);
        // Tracing was on: what the first steps sent before the collector went was written.
        const before = new Set(again.slice(0, 4).map((step) => step.traceId));
        expect(collector!.spans().some((span) => before.has(span.traceId))).toBe(true);
      },
      TOUR_TIMEOUT_MS,
    );
  });
}
