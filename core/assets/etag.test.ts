import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ETAG_LIST_OR_EMPTY_PATTERN,
  ETAG_LIST_PATTERN,
  formatEtag,
  parseEtagList,
  strongMatch,
  weakMatch,
} from "../http/etag.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { ProblemError } from "../http/problem.ts";
import { evaluateRead, putMode, requireIfMatch } from "./preconditions.ts";

const malformed = (value: string) => {
  try {
    parseEtagList("If-Match", value);
  } catch (error) {
    return error instanceof ProblemError && error.status === 400 && error.code === "malformed_request";
  }
  return false;
};

const headers = (init: Record<string, string>) => readPreconditions(new Headers(init));
const status = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof ProblemError ? `${error.status} ${error.code}` : "not a problem";
  }
  return "no error";
};

describe("parseEtagList", () => {
  it("reads *, single tags, weak tags and lists", () => {
    expect(parseEtagList("If-Match", "*")).toBe("*");
    expect(parseEtagList("If-Match", " * ")).toBe("*");
    expect(parseEtagList("If-Match", '"abc"')).toEqual([{ weak: false, opaque: "abc" }]);
    expect(parseEtagList("If-Match", 'W/"abc"')).toEqual([{ weak: true, opaque: "abc" }]);
    expect(parseEtagList("If-Match", '"a", W/"b" ,"c"')).toEqual([
      { weak: false, opaque: "a" },
      { weak: true, opaque: "b" },
      { weak: false, opaque: "c" },
    ]);
    expect(parseEtagList("If-Match", '""')).toEqual([{ weak: false, opaque: "" }]);
  });

  it("reads obs-text both as bytes (Node, Deno, Fastly) and as workerd decodes them (UTF-8)", () => {
    // The bytes c3 a9, 80 and e2 82 ac: one code unit per byte, then as UTF-8 ("é", a byte that
    // is not UTF-8, "€").
    const bytes = Buffer.from([0x22, 0xc3, 0xa9, 0x80, 0xe2, 0x82, 0xac, 0x22]);
    for (const value of [bytes.toString("latin1"), '"é\uFFFD€"']) {
      expect(parseEtagList("If-Match", `${value}, W/"b"`)).toEqual([
        { weak: false, opaque: value.slice(1, -1) },
        { weak: true, opaque: "b" },
      ]);
    }
    expect(parseEtagList("If-Match", '"🙂"')).toEqual([{ weak: false, opaque: "🙂" }]);
  });

  it("keeps commas inside a tag and skips empty list elements", () => {
    expect(parseEtagList("If-Match", '"a,b"')).toEqual([{ weak: false, opaque: "a,b" }]);
    expect(parseEtagList("If-Match", ' , "a",, "b" ,')).toEqual([
      { weak: false, opaque: "a" },
      { weak: false, opaque: "b" },
    ]);
  });

  it.each([
    "",
    " ",
    ",",
    "abc",
    '"abc',
    'abc"',
    'w/"abc"',
    'W/ "abc"',
    '"a" "b"',
    '*, "a"',
    '"a", *',
    '"a\\"b"',
    '"a b"',
    '"a"x',
  ])("refuses %j with 400 malformed_request", (value) => {
    expect(malformed(value)).toBe(true);
  });

  it("round-trips any list of formatted tags", () => {
    const opaque = fc.stringMatching(/^[\x21\x23-\x7E]{0,40}$/);
    fc.assert(
      fc.property(fc.array(fc.record({ weak: fc.boolean(), opaque }), { minLength: 1, maxLength: 8 }), (tags) => {
        const header = tags.map((t) => (t.weak ? "W/" : "") + formatEtag(t.opaque)).join(", ");
        expect(parseEtagList("If-Match", header)).toEqual(tags);
      }),
    );
  });
});

describe("ETAG_LIST_PATTERN, the OpenAPI document's If-Match and If-None-Match", () => {
  // Header values: the characters a field value can carry, biased towards the grammar's own.
  const grammar = fc.constantFrom("*", '"', "W/", ",", " ", "\t", "a", "-", "\x80", "\xff");
  const visible = fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code));
  const value = fc.array(fc.oneof(grammar, visible), { maxLength: 12 }).map((parts) => parts.join(""));

  it("accepts exactly what parseEtagList reads", () => {
    fc.assert(
      fc.property(value, (header) => {
        expect(ETAG_LIST_PATTERN.test(header)).toBe(!malformed(header));
      }),
      { numRuns: 2000 },
    );
  });

  it("holds the lists the parser's own cases read and refuse", () => {
    for (const header of ["*", " * ", '"a", W/"b" ,"c"', '""', ' , "a",, "b" ,', '"\x80"']) {
      expect(ETAG_LIST_PATTERN.test(header)).toBe(true);
    }
    for (const header of ["", ",", 'W/ "a"', '"a" "b"', '*, "a"', "\u00a0*"])
      expect(ETAG_LIST_PATTERN.test(header)).toBe(false);
  });

  it("with an empty value besides (ETAG_LIST_OR_EMPTY_PATTERN): exactly what readPreconditions reads", () => {
    fc.assert(
      fc.property(value, (header) => {
        const read = status(() => readPreconditions(new Headers({ "if-match": header })));
        expect(ETAG_LIST_OR_EMPTY_PATTERN.test(header)).toBe(read === "no error");
      }),
      { numRuns: 2000 },
    );
    for (const header of ["", " ", "\t"]) expect(ETAG_LIST_OR_EMPTY_PATTERN.test(header)).toBe(true);
    expect(ETAG_LIST_OR_EMPTY_PATTERN.test(",")).toBe(false);
  });
});

describe("comparison", () => {
  const list = parseEtagList("If-Match", 'W/"weak", "strong"');
  it("strong comparison ignores weak tags", () => {
    expect(strongMatch(list, "strong")).toBe(true);
    expect(strongMatch(list, "weak")).toBe(false);
    expect(strongMatch("*", "anything")).toBe(true);
  });
  it("weak comparison matches either form", () => {
    expect(weakMatch(list, "weak")).toBe(true);
    expect(weakMatch(list, "strong")).toBe(true);
    expect(weakMatch(list, "other")).toBe(false);
  });
});

describe("preconditions", () => {
  it("requireIfMatch: 428 without If-Match, 400 with both headers", () => {
    expect(status(() => requireIfMatch(headers({})))).toBe("428 precondition_required");
    expect(status(() => requireIfMatch(headers({ "if-none-match": "*" })))).toBe("428 precondition_required");
    expect(status(() => requireIfMatch(headers({ "if-match": '"a"', "if-none-match": "*" })))).toBe(
      "400 malformed_request",
    );
    expect(status(() => headers({ "if-none-match": "nope" }))).toBe("400 malformed_request");
    expect(requireIfMatch(headers({ "if-match": '"a", W/"b"' }))).toEqual({ any: false, tags: ["a"] });
    expect(requireIfMatch(headers({ "if-match": "*" }))).toEqual({ any: true, tags: [] });
  });

  it("putMode: create with If-None-Match: *, replace with If-Match, else 428", () => {
    expect(putMode(headers({ "if-none-match": "*" }))).toEqual({ kind: "create" });
    expect(putMode(headers({ "if-match": '"a"' }))).toEqual({
      kind: "replace",
      condition: { any: false, tags: ["a"] },
    });
    expect(status(() => putMode(headers({})))).toBe("428 precondition_required");
    expect(status(() => putMode(headers({ "if-none-match": '"a"' })))).toBe("428 precondition_required");
    expect(status(() => putMode(headers({ "if-match": "*", "if-none-match": "*" })))).toBe("400 malformed_request");
  });

  it("an empty If-Match or If-None-Match (whitespace alone too) is no precondition, as workerd hands it over", () => {
    expect(headers({ "if-match": "", "if-none-match": " \t" })).toEqual({});
    expect(status(() => requireIfMatch(headers({ "if-match": "" })))).toBe("428 precondition_required");
    expect(putMode(headers({ "if-match": "", "if-none-match": "*" }))).toEqual({ kind: "create" });
    expect(evaluateRead(headers({ "if-none-match": "" }), "v1")).toBe("ok");
    expect(status(() => headers({ "if-match": "," }))).toBe("400 malformed_request");
  });

  it("evaluateRead: If-Match first, then If-None-Match with weak comparison", () => {
    expect(evaluateRead(headers({}), "v1")).toBe("ok");
    expect(evaluateRead(headers({ "if-none-match": 'W/"v1"' }), "v1")).toBe("not_modified");
    expect(evaluateRead(headers({ "if-none-match": '"v0", "v1"' }), "v1")).toBe("not_modified");
    expect(evaluateRead(headers({ "if-none-match": "*" }), "v1")).toBe("not_modified");
    expect(evaluateRead(headers({ "if-none-match": '"v0"' }), "v1")).toBe("ok");
    expect(evaluateRead(headers({ "if-match": 'W/"v1"' }), "v1")).toBe("precondition_failed");
    expect(evaluateRead(headers({ "if-match": '"v0"', "if-none-match": '"v1"' }), "v1")).toBe("precondition_failed");
  });
});
