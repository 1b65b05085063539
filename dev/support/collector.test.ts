import { describe, expect, it } from "vitest";
import { parseSpans } from "./collector.ts";

const batch = (name: string) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "tour" } }] },
        scopeSpans: [{ spans: [{ traceId: "t1", spanId: name, name, kind: 2, attributes: [] }] }],
      },
    ],
  });

describe("the file exporter's lines, read as the collector writes them", () => {
  it("flattens each whole line's spans, the resource's attributes on each", () => {
    const spans = parseSpans(`${batch("first")}\n${batch("second")}\n`);
    expect(spans.map((span) => [span.name, span.resource["service.name"], span.parentSpanId])).toEqual([
      ["first", "tour", ""],
      ["second", "tour", ""],
    ]);
  });

  it("leaves out a last line the collector has not finished writing", () => {
    const whole = batch("whole");
    const writing = batch("writing");
    expect(parseSpans(`${whole}\n${writing.slice(0, 40)}`).map((span) => span.name)).toEqual(["whole"]);
  });
});
