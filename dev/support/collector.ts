// The OpenTelemetry Collector the trace suite sends to: otelcol-edge (.ci/otelcol.yaml, built by
// `bash .ci/tools`) with an OTLP/HTTP receiver on a free port and a file exporter writing OTLP JSON,
// one line per batch it received. What it wrote is read back as spans.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

export const COLLECTOR_PATH = process.env.OTELCOL_BIN ?? join(homedir(), "go/bin/otelcol-edge");

export const collectorInstalled = () => existsSync(COLLECTOR_PATH);

/** The one line saying what is missing and how to get it. */
export const COLLECTOR_MISSING = `the OpenTelemetry Collector is missing at ${COLLECTOR_PATH} (bash .ci/tools builds it; OTELCOL_BIN names another)`;

/** OTLP's SPAN_KIND_SERVER: a request's own span. */
export const SPAN_KIND_SERVER = 2;

/** One span as the collector wrote it, with its resource's attributes beside its own. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** W3C `tracestate`, as the span carries it on; absent when empty. */
  traceState?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  status: { code?: number };
}

export interface Collector {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  endpoint: string;
  /** Its process, for a test that stops it midway. */
  pid: number;
  /** Every span written so far. */
  spans(): CollectedSpan[];
  /** The raw lines written so far (for checks on what was sent at all). */
  text(): string;
  stop(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
  const dir = mkdtempSync(join(tmpdir(), "otelcol-"));
  const port = await freePort();
  const output = join(dir, "traces.jsonl");
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      "receivers:",
      "  otlp:",
      "    protocols:",
      "      http:",
      `        endpoint: 127.0.0.1:${port}`,
      "exporters:",
      "  file:",
      `    path: ${output}`,
      "    flush_interval: 100ms",
      "service:",
      "  telemetry:",
      "    metrics:",
      "      level: none",
      "  pipelines:",
      "    traces:",
      "      receivers: [otlp]",
      "      exporters: [file]",
      "",
    ].join("\n"),
  );
  const child = spawn(COLLECTOR_PATH, ["--config", config], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log += chunk.toString();
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await untilListening(endpoint, child, () => log);
  const text = () => (existsSync(output) ? readFileSync(output, "utf8") : "");
  return {
    endpoint,
    pid: child.pid!,
    text,
    spans: () => parseSpans(text()),
    async stop() {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Stops the collector and answers at once: for showing what the service does without it. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  child.kill("SIGTERM");
  return exited;
}

async function untilListening(endpoint: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`otelcol-edge exited: ${log()}`);
    // An empty export is answered 200 once the receiver listens.
    const answered = await fetch(`${endpoint}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    }).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`otelcol-edge did not listen within 30 s: ${log()}`);
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

const plainValue = (value: OtlpValue): unknown =>
  value.stringValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.boolValue ??
  value.doubleValue;

const attributesOf = (list: { key: string; value: OtlpValue }[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, plainValue(value)]));

/**
 * The file exporter's OTLP JSON lines, flattened to spans. Only whole lines: read while the
 * collector writes, the file may end in a batch's first part, which the next read will hold whole.
 */
export function parseSpans(text: string): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  const written = text.slice(0, text.lastIndexOf("\n") + 1);
  for (const line of written.split("\n")) {
    if (!line.trim()) continue;
    const batch = JSON.parse(line) as {
      resourceSpans?: {
        resource?: { attributes?: { key: string; value: OtlpValue }[] };
        scopeSpans?: { spans?: (Omit<CollectedSpan, "attributes" | "resource"> & { attributes?: never[] })[] }[];
      }[];
    };
    for (const resourceSpans of batch.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({
            ...span,
            parentSpanId: span.parentSpanId ?? "",
            attributes: attributesOf(span.attributes),
            resource,
          });
        }
      }
    }
  }
  return spans;
}
