import { describe, expect, it } from "vitest";
import {
  type CallFrame,
  type CpuProfile,
  cpuPerRequest,
  type PartsCost,
  partsTableHead,
  partsTableRows,
  topFunctions,
} from "./cpu-profile.ts";

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

// root → node:http listener → app middleware (request-id.ts) → console.log (a builtin) or the KV; → hono; idle.
const profile: CpuProfile = {
  nodes: [
    frame(1, "(root)", "", [2, 6, 7]),
    frame(2, "parserOnIncoming", "node:_http_server", [3, 5]),
    frame(3, "logLine", "file:///p/core/http/request-id.ts", [4, 8]),
    frame(4, "consoleCall", ""),
    frame(5, "dispatch", "file:///p/node_modules/hono/dist/compose.js"),
    frame(6, "(idle)", ""),
    frame(7, "(garbage collector)", ""),
    // What runs beneath the logging middleware before its first await is not the log line's.
    frame(8, "get", "file:///p/edge/kv/memory.ts"),
  ],
  samples: [4, 4, 5, 2, 6, 7, 8],
  timeDeltas: [100, 100, 50, 30, 1000, 20, 40],
};

describe("a CPU profile per request", () => {
  it("puts each sample in the most specific part of its stack, idle left out", () => {
    const { parts, total } = cpuPerRequest(profile, 10);
    expect(Object.fromEntries(parts)).toEqual({
      "log line": 20,
      "KV adapter": 4,
      Hono: 5,
      "runtime's HTTP and streams": 3,
      GC: 2,
    });
    expect(total).toBe(34);
  });

  it("reads a bundle's frames as the files its source map names", () => {
    const bundled: CpuProfile = {
      nodes: [
        frame(1, "(root)", "", [2]),
        frame(2, "parserOnIncoming", "node:_http_server", [3]),
        { id: 3, callFrame: { functionName: "logLine", url: "file:///p/.cache/b.mjs", lineNumber: 7 }, children: [] },
      ],
      samples: [3, 2],
      timeDeltas: [100, 30],
    };
    const sourceOf = (at: CallFrame) => (at.lineNumber === 7 ? "file:///p/core/http/request-id.ts" : at.url);
    expect(Object.fromEntries(cpuPerRequest(bundled, 10, sourceOf).parts)).toEqual({
      "log line": 10,
      "runtime's HTTP and streams": 3,
    });
    expect(topFunctions(bundled, 10, 1, sourceOf)).toEqual(["   10.0 µs  logLine core/http/request-id.ts"]);
  });

  it("names the functions that spent the most themselves", () => {
    expect(topFunctions(profile, 10, 2)).toEqual([
      "   20.0 µs  consoleCall ",
      "    5.0 µs  dispatch hono/dist/compose.js",
    ]);
  });

  it("tells recording spans, on the request's path, from exporting them", () => {
    const traced: CpuProfile = {
      nodes: [
        frame(1, "(root)", "", [2, 4]),
        frame(2, "requestTracing", "file:///p/core/telemetry/middleware.ts", [3]),
        frame(3, "startSpan", "file:///p/node_modules/@opentelemetry/sdk-trace/build/src/Tracer.js"),
        frame(4, "send", "file:///p/edge/telemetry/otlp-exporter.ts", [5]),
        frame(
          5,
          "serializeRequest",
          "file:///p/node_modules/@opentelemetry/otlp-transformer/build/src/trace/json/trace.js",
        ),
      ],
      samples: [3, 2, 5],
      timeDeltas: [40, 20, 30],
    };
    expect(Object.fromEntries(cpuPerRequest(traced, 10).parts)).toEqual({ "tracing: spans": 6, "tracing: export": 3 });
  });
});

describe("the parts table", () => {
  const cost = (total: number, parts: Record<string, number>): PartsCost => ({
    parts: new Map(Object.entries(parts)) as PartsCost["parts"],
    total,
  });
  const bare = cost(10, { GC: 1, "KV adapter": 9 });
  const hit = cost(30, { GC: 2, "KV adapter": 8, "link lookup": 20 });

  it("gives each part's µs, the dearest in the KV hit first, then each column's excess over the one before", () => {
    expect(partsTableHead(false)).toEqual([
      "| runtime | part | bare KV get | KV hit | KV hit − bare get |",
      "| --- | --- | ---: | ---: | ---: |",
    ]);
    expect(partsTableRows("node", [bare, hit])).toEqual([
      "| node | link lookup | 0.0 | 20.0 | 20.0 |",
      "| node | KV adapter | 9.0 | 8.0 | -1.0 |",
      "| node | GC | 1.0 | 2.0 | 1.0 |",
      "| node | **all** | 10.0 | 30.0 | 20.0 |",
    ]);
  });

  it("adds the KV hit traced and what tracing adds to it", () => {
    const traced = cost(36, { GC: 3, "KV adapter": 8, "link lookup": 20, "tracing: spans": 5 });
    expect(partsTableHead(true)[0]).toBe(
      "| runtime | part | bare KV get | KV hit | KV hit, traced | KV hit − bare get | traced − KV hit |",
    );
    expect(partsTableHead(true)[1]).toBe("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    expect(partsTableRows("deno", [bare, hit, traced])).toContain(
      "| deno | tracing: spans | 0.0 | 0.0 | 5.0 | 0.0 | 5.0 |",
    );
    expect(partsTableRows("deno", [bare, hit, traced]).at(-1)).toBe(
      "| deno | **all** | 10.0 | 30.0 | 36.0 | 20.0 | 6.0 |",
    );
  });
});
