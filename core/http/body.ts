import * as v from "valibot";
import { bytesUpTo } from "../lib/bounded-body.ts";
import { fieldValue } from "./field-value.ts";
import { ProblemError } from "./problem.ts";
import { validationFailed } from "./validation.ts";

export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = () =>
  new ProblemError(413, "payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);

/** Reads the body as UTF-8, refusing more than `limit` bytes without buffering past it. */
export async function readBodyText(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  refuseContentEncoding(request);
  const declared = Number(fieldValue(request.headers, "content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  const bytes = await wholeBody(request, limit);
  if (bytes === "too large") throw tooLarge();
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ProblemError(400, "malformed_request", "The body is not valid UTF-8.");
  }
}

/**
 * A body that stops arriving (the client went away mid-upload; Deno's server breaks off a chunk
 * longer than it said) is the request's fault, not the server's: 400, never an internal error.
 */
async function wholeBody(request: Request, limit: number) {
  try {
    return await bytesUpTo(request.body, limit);
  } catch {
    throw new ProblemError(400, "malformed_request", "The body did not arrive whole.");
  }
}

/**
 * Bodies are read as sent: a compressed one would be judged as bytes it is not (a gzip body is not
 * UTF-8). A coding other than `identity` is refused (RFC 9110 §15.5.16), naming the one accepted.
 */
function refuseContentEncoding(request: Request): void {
  const codings = (fieldValue(request.headers, "content-encoding") ?? "").split(",").map((c) => c.trim().toLowerCase());
  if (codings.every((coding) => coding === "" || coding === "identity")) return;
  throw new ProblemError(
    415,
    "unsupported_media_type",
    "Content-Encoding is not supported: send the body uncompressed.",
    {},
    { "accept-encoding": "identity" },
  );
}

/** The media type without parameters, lower-cased ("" when absent). */
function mediaType(request: Request): string {
  return (fieldValue(request.headers, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** A parameter of the request's media type, unquoted and lower-cased; undefined when absent. */
export function mediaTypeParameter(request: Request, name: string): string | undefined {
  for (const parameter of (fieldValue(request.headers, "content-type") ?? "").split(";").slice(1)) {
    const [key = "", value = ""] = parameter.split("=", 2).map((part) => part.trim());
    if (key.toLowerCase() === name) return value.replace(/^"(.*)"$/, "$1").toLowerCase();
  }
  return undefined;
}

// US-ASCII is UTF-8's first 128 characters: a body in it reads the same either way.
const UTF8_CHARSETS = ["utf-8", "utf8", "us-ascii"];

/**
 * A text body (the CSV import) is read as UTF-8, so one that declares another charset is refused
 * (415) rather than misread: Latin-1 bytes can be valid UTF-8 that means other characters.
 */
export function requireUtf8Charset(request: Request): void {
  const charset = mediaTypeParameter(request, "charset");
  if (charset === undefined || UTF8_CHARSETS.includes(charset)) return;
  throw new ProblemError(
    415,
    "unsupported_media_type",
    `The body is read as UTF-8; charset=${charset} is not supported. Send it as UTF-8 (charset=utf-8).`,
  );
}

export function requireMediaType(request: Request, accepted: readonly string[]): void {
  if (!accepted.includes(mediaType(request))) {
    // RFC 5789 §2.2: a PATCH refused for its media type says which patch formats are accepted.
    const headers: Record<string, string> = request.method === "PATCH" ? { "accept-patch": accepted.join(", ") } : {};
    throw new ProblemError(415, "unsupported_media_type", `Send one of: ${accepted.join(", ")}.`, {}, headers);
  }
}

interface ReadJsonOptions {
  /** Media types accepted besides application/json. */
  mediaTypes?: readonly string[];
  /** An absent (empty) body is read as this value instead of being refused. */
  whenEmpty?: unknown;
}

/** Reads, parses and validates a JSON body: 413, 415, 400 or 422 as the contract says. */
export async function readJson<S extends v.GenericSchema>(
  request: Request,
  schema: S,
  options: ReadJsonOptions = {},
): Promise<v.InferOutput<S>> {
  const text = await readBodyText(request);
  let data: unknown;
  if (text.trim() === "" && "whenEmpty" in options) {
    data = options.whenEmpty;
  } else {
    requireMediaType(request, ["application/json", ...(options.mediaTypes ?? [])]);
    data = parseJson(text);
  }
  return validate(schema, data);
}

function parseJson(text: string): unknown {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ProblemError(400, "malformed_request", "The body is not valid JSON.");
  }
  const twice = membersNamedTwice(text);
  if (twice.length > 0) throw validationFailed(twice.map((path) => ({ message: "must be given once", path })));
  return data;
}

// A JSON string, or one of the characters that structure a text; what lies between (numbers,
// literals, whitespace) is skipped. The two branches of a string's body never overlap: linear.
const JSON_TOKEN = /"(?:[^"\\]+|\\.)*"|[{}[\],:]/g;

type Frame = { names: Set<string>; name?: string; expectingName: boolean } | { names?: undefined; index: number };

/**
 * How many repeated members a refusal names at most. A member's path is as long as the body is
 * deep, so naming every repeat of a body nested thousands deep would make an answer (and the
 * memory behind it) thousands of times the body's size.
 */
export const MAX_REPEATS_NAMED = 10;

/**
 * The paths of the members an object of `text` (valid JSON) names twice, the first
 * MAX_REPEATS_NAMED in the text's order. RFC 8259 leaves what they mean to the parser
 * (JSON.parse keeps the last, others the first), so a proxy or firewall in front could judge a
 * body the API reads otherwise: I-JSON (RFC 7493 §2.3) forbids them, and so does the API, as it
 * refuses a query parameter given twice.
 */
function membersNamedTwice(text: string): Array<Array<string | number>> {
  const found: Array<Array<string | number>> = [];
  const frames: Frame[] = [];
  for (const [token] of text.matchAll(JSON_TOKEN)) {
    if (found.length === MAX_REPEATS_NAMED) break;
    const top = frames.at(-1);
    if (token === "{") frames.push({ names: new Set(), expectingName: true });
    else if (token === "[") frames.push({ index: 0 });
    else if (token === "}" || token === "]") frames.pop();
    else if (top === undefined) continue;
    else if (token === ",") {
      if (top.names) top.expectingName = true;
      else top.index++;
    } else if (token === ":") {
      if (top.names) top.expectingName = false;
    } else if (top.names && top.expectingName) {
      // Compared as decoded: "name" and "\u006eame" name one member.
      const name = JSON.parse(token) as string;
      if (top.names.has(name)) found.push([...frames.slice(0, -1).map(keyOf), name]);
      top.names.add(name);
      top.name = name;
    }
  }
  return found;
}

const keyOf = (frame: Frame): string | number => (frame.names ? frame.name! : frame.index);

export interface FieldError {
  field: string;
  message: string;
}

/** Validates any input (body, query, path) and answers 422 listing the failing fields. */
export function validate<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, data);
  if (result.success) return result.output;
  throw validationFailed(result.issues);
}
