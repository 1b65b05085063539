// Entity-tags (RFC 9110 §8.8.3) and the lists carried by If-Match / If-None-Match (§13.1.1-2).
import { withoutSpacesAround } from "./field-value.ts";
import { ProblemError } from "./problem.ts";

interface EntityTag {
  weak: boolean;
  /** The opaque-tag without its quotes. */
  opaque: string;
}

/** `*`, or one or more entity-tags. */
export type EtagList = "*" | EntityTag[];

// etagc = %x21 / %x23-7E / obs-text: any visible byte but DQUOTE. Commas are allowed inside the
// quotes, so a list cannot be split on commas: it is scanned tag by tag.
const ETAGC_CLASS = "[\\x21\\x23-\\x7E\\x80-\\xFF]";
// obs-text as a runtime hands it over. Node, Deno and Fastly give one code unit per byte
// (U+0080-U+00FF), as the Fetch standard says; workerd decodes the bytes as UTF-8, so there they
// arrive as any code point from U+0080 up, U+FFFD where they are not UTF-8 (cloudflare/workerd
// issue 6927). Both are read as obs-text, so a request means the same on every runtime.
const ETAGC = /^[\x21\x23-\x7E\u0080-\uFFFF]*$/;
const OWS = /[ \t]/;

// The grammar parseEtagList reads, as one pattern for the OpenAPI document: `*`, or entity-tags
// separated by commas, empty elements and optional whitespace around them allowed.
const TAG = `(?:W/)?"${ETAGC_CLASS}*"`;
const LIST = `[ \\t]*\\*[ \\t]*|[ \\t,]*${TAG}(?:[ \\t]*,[ \\t,]*${TAG})*[ \\t,]*`;
export const ETAG_LIST_PATTERN = new RegExp(`^(?:${LIST})$`);
/** The same, or nothing but whitespace: a header of no value, which counts as absent (preconditions.ts). */
export const ETAG_LIST_OR_EMPTY_PATTERN = new RegExp(`^(?:[ \\t]*|${LIST})$`);

/** The strong HTTP ETag for an asset's stored version token. */
export const formatEtag = (opaque: string): string => `"${opaque}"`;

/** Parses an If-Match / If-None-Match value; anything outside the grammar is a 400. */
export function parseEtagList(header: string, value: string): EtagList {
  if (withoutSpacesAround(value) === "*") return "*";
  const tags: EntityTag[] = [];
  let pos = 0;
  const malformed = (why: string) =>
    new ProblemError(400, "malformed_request", `${header} is not "*" or a list of entity-tags: ${why}.`);

  while (pos < value.length) {
    // Empty list elements and whitespace around them are allowed (RFC 9110 §5.6.1.2).
    while (pos < value.length && (OWS.test(value[pos]!) || value[pos] === ",")) pos++;
    if (pos >= value.length) break;
    const weak = value.startsWith("W/", pos);
    if (weak) pos += 2;
    if (value[pos] !== '"') throw malformed(`expected a quoted tag at character ${pos + 1}`);
    const end = value.indexOf('"', pos + 1);
    if (end < 0) throw malformed("unterminated quote");
    const opaque = value.slice(pos + 1, end);
    if (!ETAGC.test(opaque)) throw malformed("invalid character in a tag");
    tags.push({ weak, opaque });
    pos = end + 1;
    while (pos < value.length && OWS.test(value[pos]!)) pos++;
    if (pos < value.length && value[pos] !== ",") throw malformed(`expected "," at character ${pos + 1}`);
  }
  if (tags.length === 0) throw malformed("no entity-tag given");
  return tags;
}

/** Opaque-tags a write may match: strong comparison ignores weak tags entirely (§8.8.3.2). */
export const strongTags = (tags: readonly EntityTag[]): string[] => tags.filter((t) => !t.weak).map((t) => t.opaque);

/** Weak comparison, which If-None-Match uses (§13.1.2): `W/"x"` and `"x"` are the same. */
export const weakMatch = (list: EtagList, opaque: string): boolean =>
  list === "*" || list.some((t) => t.opaque === opaque);

/** Strong comparison, which If-Match uses (§13.1.1). */
export const strongMatch = (list: EtagList, opaque: string): boolean =>
  list === "*" || strongTags(list).includes(opaque);
