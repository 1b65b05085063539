// A collector's stand-in behind `fetch`, for tests of the OTLP/JSON exporter: the spans of each
// export it is sent, one list per export.

/** The fields of an exported span the tests read. */
export interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind?: number;
  status?: { code?: number };
}

/** A `fetch` that keeps each export's spans in `exports` and answers 200. */
export function keptExports() {
  const exports: ExportedSpan[][] = [];
  const send = (async (_url: string, init: RequestInit) => {
    const body = JSON.parse(new TextDecoder().decode(init.body as Uint8Array));
    exports.push(body.resourceSpans[0].scopeSpans[0].spans);
    return new Response(null, { status: 200 });
  }) as typeof fetch;
  return { exports, send };
}
