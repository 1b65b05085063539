import { describe, expect, it } from "vitest";
import { parseToml } from "./toml.ts";

describe("the fastly.toml reader", () => {
  it("reads tables, dotted and quoted keys, strings, numbers, booleans, arrays and inline tables", () => {
    const doc = parseToml(`
# a comment
name = "svc" # trailing comment
count = 1_000
on = true
[a.b]
"quoted key" = 'literal \\n kept'
escaped = "tab\\there \\u00e9"
list = [
  { key = "k1", data = "v1" },
  { key = "k2", env = "E" },  # trailing comma next
]
[a]
c.d = -3
`);
    expect(doc).toEqual({
      name: "svc",
      count: 1000,
      on: true,
      a: {
        b: {
          "quoted key": "literal \\n kept",
          escaped: "tab\there é",
          list: [
            { key: "k1", data: "v1" },
            { key: "k2", env: "E" },
          ],
        },
        c: { d: -3 },
      },
    });
  });

  it("refuses what it does not read instead of misreading it", () => {
    expect(() => parseToml("[[arr]]\nx = 1")).toThrow(/arrays of tables/);
    expect(() => parseToml('x = """multi"""')).toThrow(/multi-line/);
    expect(() => parseToml("x = 1.5")).toThrow(/unsupported value/);
    expect(() => parseToml("x = 1979-05-27")).toThrow(/unsupported value/);
    expect(() => parseToml("x = 1\nx = 2")).toThrow(/duplicate key x/);
    expect(() => parseToml('x = "open')).toThrow(/line 1: unterminated string/);
    expect(() => parseToml("x = 1 y = 2")).toThrow(/expected end of line/);
  });
});
