import { describe, expect, it } from "vitest";
import { ProblemError } from "../http/problem.ts";
import { MAX_IMPORT_ROWS, parseImport } from "./csv-import.ts";

const parseText = (text: string) => parseImport(text).rows;
const HEADER = "id,name,material,source_etag";

function problemOf(text: string) {
  try {
    parseText(text);
  } catch (error) {
    if (error instanceof ProblemError)
      return { status: error.status, code: error.code, detail: error.detail, ...error.extensions };
    throw error;
  }
  throw new Error("expected a problem");
}

describe("parseImport", () => {
  it("reads quoted fields, doubled quotes, CRLF and line breaks inside quotes, with their line numbers", () => {
    const rows = parseText(
      `\ufeff${HEADER}\r\n` +
        `a1,"Chair, oak","say ""hi""",e1\r\n` +
        `a2,"two\r\nlines",steel,e2\r\n` +
        `\r\n` +
        `a3,plain,wood,e3`,
    );
    expect(rows).toEqual([
      { valid: { line: 2, id: "a1", name: "Chair, oak", material: 'say "hi"', sourceEtag: "e1" } },
      { valid: { line: 3, id: "a2", name: "two\r\nlines", material: "steel", sourceEtag: "e2" } },
      { valid: { line: 6, id: "a3", name: "plain", material: "wood", sourceEtag: "e3" } },
    ]);
  });

  it("counts lines of LF and CR files too", () => {
    expect(parseText(`${HEADER}\n\na,"x\ny",m,e\nb,n,m,e\n`).map((r) => ("valid" in r ? r.valid.line : 0))).toEqual([
      3, 5,
    ]);
    expect(parseText(`${HEADER}\ra,n,m,e\rb,n,m,e`).map((r) => ("valid" in r ? r.valid.line : 0))).toEqual([2, 3]);
    const lines = parseText(`${HEADER}\r\nä,"öü\r\n€",m,e\r\nb,n,m,e`).map((r) =>
      "valid" in r ? r.valid.line : r.invalid.line,
    );
    expect(lines).toEqual([2, 4]);
  });

  it("reads a file whose lines end in CRLF, LF and CR mixed (files joined from several sources) row by row", () => {
    const rows = parseText(`${HEADER}\r\na1,n,m,e1\na2,n,m,e2\ra3,"x\ny",m,e3\r\na4,n,m,e4\n`);
    expect(rows.map((r) => ("valid" in r ? [r.valid.line, r.valid.id] : r.invalid))).toEqual([
      [2, "a1"],
      [3, "a2"],
      [4, "a3"],
      [6, "a4"],
    ]);
  });

  it("maps columns by header name, in any order and case", () => {
    const [row] = parseText("Source_Etag, material ,NAME,id\ne1,wood,Chair,a1\n");
    expect(row).toEqual({ valid: { line: 2, id: "a1", name: "Chair", material: "wood", sourceEtag: "e1" } });
  });

  it("ignores the empty columns a spreadsheet exports around its data, but not a value in one", () => {
    const rows = parseText(`${HEADER},,\r\na1,n,m,e1,,\r\n,,,,,\r\na2,n,m,e2,,oops\r\n`);
    expect(rows).toEqual([
      { valid: { line: 2, id: "a1", name: "n", material: "m", sourceEtag: "e1" } },
      {
        invalid: {
          line: 4,
          id: "a2",
          errors: [{ field: "row", message: "field 6 has no column name in the header, so must be empty" }],
        },
      },
    ]);
    const [shifted] = parseText(`,${HEADER}\n,a1,n,m,e1\n`);
    expect(shifted).toEqual({ valid: { line: 2, id: "a1", name: "n", material: "m", sourceEtag: "e1" } });
  });

  it("reads Excel's exports where a comma is the decimal separator: fields separated by semicolons", () => {
    const rows = parseText(`\ufeffid;name;material;source_etag\r\na1;"Chair; oak";1,5 mm steel;e1\r\n`);
    expect(rows).toEqual([
      { valid: { line: 2, id: "a1", name: "Chair; oak", material: "1,5 mm steel", sourceEtag: "e1" } },
    ]);
  });

  it("takes the separator from a first line `sep=,` or `sep=;`, which is no header", () => {
    const semicolons = parseText(`\ufeffsep=;\r\nid;name;material;source_etag\r\na1;n;1,5;e1\r\n`);
    expect(semicolons).toEqual([{ valid: { line: 3, id: "a1", name: "n", material: "1,5", sourceEtag: "e1" } }]);
    const commas = parseText(`SEP=,\n${HEADER}\na1,n,m,e1\n`);
    expect(commas).toEqual([{ valid: { line: 3, id: "a1", name: "n", material: "m", sourceEtag: "e1" } }]);
    expect(problemOf(`sep=|\nid|name|material|source_etag\n`)).toMatchObject({
      status: 422,
      errors: [{ field: "header" }],
    });
  });

  it("marks rows that fail validation invalid, with the reasons", () => {
    const rows = parseText(
      [
        HEADER,
        "ok,Chair,wood,e1",
        "bad id!,Chair,wood,e1",
        "a2,,wood,e1",
        `a3,${"x".repeat(201)},wood,e1`,
        'a4,Chair,wood,"""quoted"""',
        "a5,Chair,wood",
        "a6,Chair,wood,e1,extra",
        "a7,Chair,wood,",
      ].join("\n"),
    );
    expect(rows[0]).toHaveProperty("valid");
    const invalid = rows
      .slice(1)
      .map((r) => ("invalid" in r ? [r.invalid.line, r.invalid.id, r.invalid.errors[0]!.field] : r));
    expect(invalid).toEqual([
      [3, "bad id!", "id"],
      [4, "a2", "name"],
      [5, "a3", "name"],
      [6, "a4", "source_etag"],
      [7, "a5", "row"],
      [8, "a6", "row"],
      [9, "a7", "source_etag"],
    ]);
  });

  it("says a blank source_etag is blank: the import changes existing versions, it creates nothing", () => {
    const [blank] = parseText(`${HEADER}\na1,Chair,wood, \n`);
    expect(blank).toEqual({
      invalid: {
        line: 2,
        id: "a1",
        errors: [{ field: "source_etag", message: expect.stringMatching(/^must not be blank/) }],
      },
    });
  });

  it("says a weak ETag never matches, quoted or not, rather than to drop its quotes", () => {
    const rows = parseText(`${HEADER}\na1,n,m,"W/""e1"""\na2,n,m,W/e2\na3,n,m,"""e3"""\n`);
    expect(rows.map((r) => ("invalid" in r ? r.invalid.errors : r))).toEqual([
      [{ field: "source_etag", message: "must be a strong ETag: a weak one (W/) never matches a write" }],
      [{ field: "source_etag", message: "must be a strong ETag: a weak one (W/) never matches a write" }],
      [{ field: "source_etag", message: "must be an ETag's opaque-tag, without quotes" }],
    ]);
  });

  it("refuses a missing or wrong header with 422", () => {
    expect(problemOf("")).toMatchObject({ status: 422, code: "validation_failed" });
    expect(problemOf("a1,Chair,wood,e1\n")).toMatchObject({ status: 422, errors: [{ field: "header" }] });
    expect(problemOf("id,name,material\n")).toMatchObject({ status: 422 });
    expect(problemOf("id,name,material,source_etag,extra\n")).toMatchObject({ status: 422 });
    expect(problemOf("id,id,material,source_etag\n")).toMatchObject({ status: 422 });
  });

  it("refuses broken quoting as a whole with 400, naming the line", () => {
    expect(problemOf(`${HEADER}\na1,"open,wood,e1\na2,n,m,e\n`)).toMatchObject({
      status: 400,
      code: "malformed_request",
    });
    expect(problemOf(`${HEADER}\na1,x"y,wood,e1\n`)).toMatchObject({ status: 400, line: 2 });
  });

  it("names the line where the broken row starts, after a CRLF inside quotes and for a quote never closed", () => {
    const before = `${HEADER}\r\na1,"two\r\nlines",wood,e1\r\n`;
    const stray = problemOf(`${before}a2,x"y,wood,e2\r\na3,n,m,e3\r\n`);
    expect(stray).toMatchObject({ status: 400, line: 4 });
    expect(stray.detail).toContain("at line 4, field 2:"); // not csv-parse's own count, which is off
    expect(problemOf(`${before}a2,"open,wood,e2\r\na3,n,m,e3\r\n`)).toMatchObject({ status: 400, line: 4 });
    expect(problemOf(`${HEADER}\na1,"open,wood,e1\n\na2,n,m,e2\n`)).toMatchObject({ status: 400, line: 2 });
  });

  it("counts fields from 1 where a broken quote is, as the user does", () => {
    const problem = problemOf(`${HEADER}\na1, "Chair, oak",wood,e1\n`);
    expect(problem).toMatchObject({ status: 400, line: 2 });
    expect(problem.detail).toContain("at line 2, field 2:");
    expect(problemOf(`${HEADER}\nx"y,n,m,e\n`).detail).toContain("at line 2, field 1:");
  });

  it.each([
    ["a quote never closed", `a1,"open,wood,e1`, "a quote opens the field and none closes it"],
    [
      "a quote inside an unquoted field",
      `a1,secret"x,wood,e1`,
      "a quote is inside a field that does not start with one",
    ],
    ["text after a closing quote", `a1,"Chair"secret,wood,e1`, "the field goes on after its closing quote"],
  ])("says what is wrong with %s and how to quote, in its own words, echoing no cell", (_why, row, reason) => {
    expect(problemOf(`${HEADER}\n${row}\n`).detail).toBe(
      `The CSV cannot be parsed at line 2, field 2: ${reason}. A field holding a quote, a separator or a line break must be quoted whole ("…"), each quote inside it written twice ("").`,
    );
  });

  it(`accepts ${MAX_IMPORT_ROWS} rows and refuses one more with 413`, () => {
    const csv = (n: number) => [HEADER, ...Array.from({ length: n }, (_, i) => `a${i},n,m,e`)].join("\n");
    expect(parseText(csv(MAX_IMPORT_ROWS))).toHaveLength(MAX_IMPORT_ROWS);
    expect(problemOf(csv(MAX_IMPORT_ROWS + 1))).toMatchObject({
      status: 413,
      code: "payload_too_large",
      maxRows: MAX_IMPORT_ROWS,
    });
  });

  // csv-parse costs tens of microseconds a row: the 32,000 rows a 64 KiB body can hold took over
  // a second of CPU each time, only to be refused. Reading stops at the first row past the limit.
  it(`reads no further than row ${MAX_IMPORT_ROWS + 1}: what follows it, broken quoting or more rows, is never parsed`, () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`);
    const brokenAfter = [HEADER, ...rows(MAX_IMPORT_ROWS + 1), 'b,"open,m,e'].join("\n");
    expect(problemOf(brokenAfter)).toMatchObject({ status: 413, code: "payload_too_large", maxRows: MAX_IMPORT_ROWS });
    const started = performance.now();
    expect(problemOf([HEADER, ...rows(30_000)].join("\n"))).toMatchObject({ status: 413 });
    expect(performance.now() - started).toBeLessThan(500);
    // Blank rows are no rows: many of them still leave room for the limit's worth of real ones.
    const blanks = [HEADER, ...Array(MAX_IMPORT_ROWS + 5).fill(",,,"), ...rows(MAX_IMPORT_ROWS)].join("\n");
    expect(parseText(blanks)).toHaveLength(MAX_IMPORT_ROWS);
  });

  it("refuses a wrong header before counting rows: 422, however many rows follow", () => {
    const many = ["id,name", ...Array.from({ length: MAX_IMPORT_ROWS + 5 }, () => "a,b")].join("\n");
    expect(problemOf(many)).toMatchObject({ status: 422, code: "validation_failed" });
  });

  it("skips rows with nothing in them, as spreadsheets export them", () => {
    const rows = parseText(`${HEADER}\n,,,\n  \n"",""\na1,n,m,e\n`);
    expect(rows).toEqual([{ valid: { line: 5, id: "a1", name: "n", material: "m", sourceEtag: "e" } }]);
  });

  it("reads a header-only file as no rows", () => {
    expect(parseText(`${HEADER}\r\n`)).toEqual([]);
  });
});
