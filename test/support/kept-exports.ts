// A collector's stand-in behind `fetch`, for tests of the OTLP/JSON exporter: the spans of each
// export it is sent, one list per export, read as the trace suite reads the real collector's.
import { type CollectedSpan, parseSpans } from "../../dev/support/collector.ts";

/** An exported span: its fields, its attributes and its resource's, flattened. */
export type ExportedSpan = CollectedSpan;

/** A `fetch` that keeps each export's spans in `exports` and answers 200. */
export function keptExports() {
  const exports: ExportedSpan[][] = [];
  const send = (async (_url: string, init: RequestInit) => {
    exports.push(parseSpans(`${new TextDecoder().decode(init.body as Uint8Array)}\n`));
    return new Response(null, { status: 200 });
  }) as typeof fetch;
  return { exports, send };
}
