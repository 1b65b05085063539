// Pinned examples; test/local-stack/neon-wire.test.ts checks every type against the driver itself.
import { describe, expect, it } from "vitest";
import { fromPgText, toPgParam } from "./pg-text.ts";

describe("toPgParam", () => {
  it("sends scalars as text and null for SQL NULL", () => {
    expect([42, 1.5, true, 7n, "x", null, undefined].map(toPgParam)).toEqual([
      "42",
      "1.5",
      "true",
      "7",
      "x",
      null,
      null,
    ]);
  });

  it("sends arrays as Postgres array literals, quoting and escaping each element", () => {
    expect(toPgParam(["a", 'b "c"', "d\\e", null, [1, 2], { k: 1 }])).toBe(
      '{"a","b \\"c\\"","d\\\\e",NULL,{"1","2"},"{\\"k\\":1}"}',
    );
  });

  it("sends bytes as hex, objects as JSON or their own Postgres form", () => {
    expect(toPgParam(new Uint8Array([0, 15, 255]))).toBe("\\x000fff");
    expect(toPgParam([new Uint8Array([1])])).toBe("{\\\\x01}");
    expect(toPgParam({ a: [1] })).toBe('{"a":[1]}');
    expect(toPgParam({ toPostgres: () => ["x"] })).toBe('{"x"}');
    const loop: { toPostgres(): unknown } = { toPostgres: () => loop };
    expect(() => toPgParam(loop)).toThrow(/circular/);
  });

  it("sends a date as its local time with the offset", () => {
    const date = new Date(2024, 0, 2, 3, 4, 5, 6);
    const offset = -date.getTimezoneOffset();
    const zone = `${offset < 0 ? "-" : "+"}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")}:${String(Math.abs(offset) % 60).padStart(2, "0")}`;
    expect(toPgParam(date)).toBe(`2024-01-02T03:04:05.006${zone}`);
  });
});

describe("fromPgText", () => {
  it("parses by type OID and leaves every other type as text", () => {
    expect(fromPgText("t", 16)).toBe(true);
    expect(fromPgText("42", 23)).toBe(42);
    expect(fromPgText("9007199254740993", 20)).toBe("9007199254740993");
    expect(fromPgText("1.50", 1700)).toBe("1.50");
    expect(fromPgText('{"a":1}', 3802)).toEqual({ a: 1 });
    expect(fromPgText("2024-01-02 03:04:05.678+00", 1184)).toEqual(new Date("2024-01-02T03:04:05.678Z"));
    expect(fromPgText("{1,NULL,3}", 1007)).toEqual([1, null, 3]);
    expect(fromPgText('{"a b",c}', 1009)).toEqual(["a b", "c"]);
    expect(fromPgText("\\x01", 17)).toBe("\\x01");
  });
});
