// Reads an asset import (`text/csv`, header `id,name,material,source_etag`) into rows that are
// either valid or `invalid` with reasons. Parsing is csv-parse's (RFC 4180: quoted fields,
// doubled quotes, line breaks inside quotes, CRLF/LF/CR, BOM; ";" between fields where the first
// line says so, as Excel writes them in some locales). Its browser build is used: it
// carries its own Buffer, so core stays free of Node built-ins.
import { type CsvError, parse } from "csv-parse/browser/esm/sync";
import * as v from "valibot";
import { type FieldError, mediaTypeParameter, validate } from "../http/body.ts";
import { ProblemError } from "../http/problem.ts";
import { ASSET_FIELDS, AssetIdSchema } from "./model.ts";
import type { ImportRow } from "./repository.ts";

export const MAX_IMPORT_ROWS = 1000;
const IMPORT_COLUMNS = ["id", "name", "material", "source_etag"] as const;

type Column = (typeof IMPORT_COLUMNS)[number];

interface InvalidRow {
  line: number;
  /** The id as written, when the row has one. */
  id: string | null;
  errors: FieldError[];
}

/** Stops csv-parse at the first row past the limit: none after it is read. */
class TooManyRows extends Error {}

interface ParsedImport {
  /** In input order. */
  rows: Array<{ valid: ImportRow } | { invalid: InvalidRow }>;
}

// The opaque-tag of an ETag without its quotes: visible ASCII except DQUOTE. Blank is told apart:
// it is what a row meant to create an asset has, and the import creates none. A weak ETag (a
// CDN's, for one) is told apart too: without its quotes it would still never match, as in If-Match.
const OPAQUE_TAG = /^[\x21\x23-\x7E]{0,256}$/;
const isWeak = (tag: string) => tag.startsWith("W/");
const SourceEtagSchema = v.pipe(
  v.string(),
  v.trim(),
  v.check((tag: string) => tag !== "", "must not be blank: the ETag of the version the row changes"),
  v.check(
    (tag: string) => OPAQUE_TAG.test(tag) && !isWeak(tag),
    (issue) =>
      isWeak(issue.input as string)
        ? "must be a strong ETag: a weak one (W/) never matches a write"
        : "must be an ETag's opaque-tag, without quotes",
  ),
);
const RowSchema = v.object({
  id: v.pipe(v.string(), v.trim(), AssetIdSchema),
  ...ASSET_FIELDS,
  source_etag: SourceEtagSchema,
});

interface CsvRecord {
  fields: string[];
  line: number;
}

/**
 * The columns are found by the header row's names, so a CSV whose media type says it has none
 * (`header=absent`, RFC 4180 §3) cannot be read: refused (415) before its first row is taken for one.
 */
export function requireHeaderRow(request: Request): void {
  if (mediaTypeParameter(request, "header") !== "absent") return;
  throw new ProblemError(
    415,
    "unsupported_media_type",
    `The import finds its columns by the header row; header=absent is not supported. Send the header row ${IMPORT_COLUMNS.join(",")} first.`,
  );
}

export function parseImport(text: string): ParsedImport {
  const [header, ...records] = readRecords(text);
  if (!header) throw headerProblem("The CSV is empty.");
  const layout = readHeader(header.fields);
  if (records.length > MAX_IMPORT_ROWS) {
    throw new ProblemError(
      413,
      "payload_too_large",
      `An import holds at most ${MAX_IMPORT_ROWS} rows; this one has more. Split it.`,
      { maxRows: MAX_IMPORT_ROWS },
    );
  }
  return { rows: records.map((record) => readRow(record, layout)) };
}

/**
 * The header and the rows with something in them, up to the first past the limit: csv-parse costs
 * tens of microseconds a row, and reading all the rows 64 KiB can hold (32,000) only to refuse
 * them cost a second of CPU per request.
 */
function readRecords(text: string): CsvRecord[] {
  // csv-parse reports where each record ends as a UTF-8 byte offset; lines are counted here
  // because its own line count is off after a CRLF inside quotes, in its errors too.
  const bytes = new TextEncoder().encode(text);
  const lineAt = lineCounter(bytes);
  const records: CsvRecord[] = [];
  let end = 0;
  // A record starts where the previous one ended, past any empty lines.
  const nextLine = () => lineAt(skipLineBreaks(bytes, end));
  const onRecord = (fields: string[], info: { bytes: number }) => {
    // Spreadsheets export formatted but empty rows as ",,,": they are not rows; nor is a `sep=` line.
    const isRow = fields.some((field) => field.trim() !== "") && !(records.length === 0 && isSeparatorLine(fields));
    if (isRow) records.push({ fields, line: nextLine() });
    end = info.bytes;
    if (records.length > MAX_IMPORT_ROWS + 1) throw new TooManyRows();
    return null;
  };
  // Any of the three line ends ends a row, whichever came first: csv-parse otherwise keeps to the
  // first one it meets, and a file joined from several sources would run rows together.
  const options = {
    bom: true,
    delimiter: separatorOf(text),
    relax_column_count: true,
    skip_empty_lines: true,
    record_delimiter: LINE_ENDS,
  };
  try {
    parse(text, { ...options, on_record: onRecord });
  } catch (error) {
    if (error instanceof TooManyRows) return records;
    if (!isCsvError(error)) throw error;
    throw brokenQuoting(error, nextLine());
  }
  return records;
}

/** Where each column is, and which columns the header leaves unnamed. */
interface Header {
  columns: Map<Column, number>;
  width: number;
  unnamed: number[];
}

// Excel writes ";" between fields where a comma is the decimal separator (German, French,
// Dutch…), and some files start with a line `sep=;` (or `sep=,`) saying which. The first line
// decides: `sep=` names the separator; a header with a ";" and no "," is separated by ";"; any
// other file by RFC 4180's ",".
function separatorOf(text: string): "," | ";" {
  const firstLine = /^\ufeff?[\r\n]*([^\r\n]*)/.exec(text)![1]!;
  const declared = /^sep=([,;])$/i.exec(firstLine.trim());
  if (declared) return declared[1] as "," | ";";
  return firstLine.includes(";") && !firstLine.includes(",") ? ";" : ",";
}

/** The `sep=` line, as read with the separator it names: no header, no row. */
const isSeparatorLine = (fields: string[]) =>
  fields.length === 2 && fields[0]!.trim().toLowerCase() === "sep=" && fields[1]!.trim() === "";

// Excel writes a column it ever formatted, next to the data, as an empty header cell and an empty
// cell on every row: columns without a name are not columns, as empty rows are not rows.
function readHeader(fields: string[]): Header {
  const names = fields.map((field) => field.trim().toLowerCase());
  const columns = new Map<Column, number>();
  const unnamed: number[] = [];
  names.forEach((name, index) => {
    if (name === "") unnamed.push(index);
    else if ((IMPORT_COLUMNS as readonly string[]).includes(name) && !columns.has(name as Column)) {
      columns.set(name as Column, index);
    }
  });
  if (columns.size !== IMPORT_COLUMNS.length || names.length - unnamed.length !== IMPORT_COLUMNS.length) {
    throw headerProblem(`The header row is "${fields.join(",")}".`);
  }
  return { columns, width: names.length, unnamed };
}

// A broken quote leaves no way to know where the following rows start: nothing is guessed. The
// line is the broken row's, counted as for every row (csv-parse's own count is off). The reason is
// said in the contract's words, not csv-parse's, which speak of its options ("trimable character
// (if activated) or comment") and quote the cell; fields are counted from 1, as a spreadsheet's user does.
function brokenQuoting(error: CsvError, line: number): ProblemError {
  const field = typeof error.column === "number" ? error.column + 1 : undefined;
  const where = field === undefined ? `line ${line}` : `line ${line}, field ${field}`;
  const reason = QUOTING_REASONS[error.code] ?? "its quoting is broken";
  return new ProblemError(
    400,
    "malformed_request",
    `The CSV cannot be parsed at ${where}: ${reason}. A field holding a quote, a separator or a line break must be quoted whole ("…"), each quote inside it written twice ("").`,
    { line },
  );
}

const QUOTING_REASONS: Partial<Record<CsvError["code"], string>> = {
  CSV_QUOTE_NOT_CLOSED: "a quote opens the field and none closes it",
  INVALID_OPENING_QUOTE: "a quote is inside a field that does not start with one",
  CSV_INVALID_CLOSING_QUOTE: "the field goes on after its closing quote",
};

const isCsvError = (error: unknown): error is CsvError =>
  error instanceof Error && typeof (error as CsvError).code === "string" && "lines" in error;

const headerProblem = (detail: string) =>
  new ProblemError(
    422,
    "validation_failed",
    `${detail} The first row must name the columns ${IMPORT_COLUMNS.join(",")}.`,
    {
      errors: [{ field: "header", message: `must be ${IMPORT_COLUMNS.join(",")}` }],
    },
  );

function readRow({ fields, line }: CsvRecord, { columns, width, unnamed }: Header): ParsedImport["rows"][number] {
  const value = (column: Column) => fields[columns.get(column)!];
  const id = value("id") ?? null;
  const rowError = (message: string) => ({ invalid: { line, id, errors: [{ field: "row", message }] } });
  if (fields.length !== width) return rowError(`expected ${width} fields, found ${fields.length}`);
  const stray = unnamed.find((index) => fields[index]!.trim() !== "");
  if (stray !== undefined) return rowError(`field ${stray + 1} has no column name in the header, so must be empty`);
  try {
    const row = validate(RowSchema, Object.fromEntries(IMPORT_COLUMNS.map((column) => [column, value(column)])));
    return { valid: { line, id: row.id, name: row.name, material: row.material, sourceEtag: row.source_etag } };
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    return { invalid: { line, id, errors: error.extensions.errors as FieldError[] } };
  }
}

const LINE_ENDS = ["\r\n", "\n", "\r"];
const LF = 0x0a;
const CR = 0x0d;

function skipLineBreaks(bytes: Uint8Array, offset: number): number {
  while (bytes[offset] === LF || bytes[offset] === CR) offset++;
  return offset;
}

/** Line number (1-based) of byte offsets asked in increasing order; CRLF, LF and CR each end a line. */
function lineCounter(bytes: Uint8Array): (offset: number) => number {
  let position = 0;
  let line = 1;
  return (offset) => {
    for (; position < offset; position++) {
      const byte = bytes[position];
      if (byte === LF || (byte === CR && bytes[position + 1] !== LF)) line++;
    }
    return line;
  };
}
