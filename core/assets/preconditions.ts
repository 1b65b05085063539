// Which precondition a request carries, and what each asset route requires (RFC 9110 §13, RFC 6585 §3).
import { fieldValue } from "../http/field-value.ts";
import { ProblemError } from "../http/problem.ts";
import { type EtagList, parseEtagList, strongMatch, strongTags, weakMatch } from "./etag.ts";

interface Preconditions {
  ifMatch?: EtagList;
  ifNoneMatch?: EtagList;
}

/** What a conditional write sends to SQL: `*`, or the strong opaque-tags that may match. */
export interface MatchCondition {
  any: boolean;
  tags: string[];
}

export function readPreconditions(headers: Headers): Preconditions {
  const ifMatch = headerValue(headers, "if-match");
  const ifNoneMatch = headerValue(headers, "if-none-match");
  return {
    ...(ifMatch === undefined ? {} : { ifMatch: parseEtagList("If-Match", ifMatch) }),
    ...(ifNoneMatch === undefined ? {} : { ifNoneMatch: parseEtagList("If-None-Match", ifNoneMatch) }),
  };
}

// A header of no value (or whitespace alone) is no precondition: workerd removes an empty
// If-Match or If-None-Match before the app sees it, so every runtime reads one as absent.
function headerValue(headers: Headers, name: string): string | undefined {
  const value = fieldValue(headers, name);
  return value === "" ? undefined : value;
}

const required = (detail: string) => new ProblemError(428, "precondition_required", detail);

// Together they can never both hold for a write (If-Match needs the asset, If-None-Match: * its
// absence); such a request is a client bug, answered as one rather than as a certain 412.
function refuseBoth(p: Preconditions): void {
  if (p.ifMatch !== undefined && p.ifNoneMatch !== undefined) {
    throw new ProblemError(400, "malformed_request", "Send either If-Match or If-None-Match, not both.");
  }
}

const toCondition = (list: EtagList): MatchCondition =>
  list === "*" ? { any: true, tags: [] } : { any: false, tags: strongTags(list) };

/** PATCH, DELETE and approve: If-Match is required (428 without it). */
export function requireIfMatch(p: Preconditions): MatchCondition {
  refuseBoth(p);
  if (p.ifMatch === undefined) {
    throw required('This request needs If-Match with the asset\'s current ETag (or "*").');
  }
  return toCondition(p.ifMatch);
}

type PutMode = { kind: "create" } | { kind: "replace"; condition: MatchCondition };

/** PUT: `If-None-Match: *` creates, `If-Match` replaces; anything else could overwrite blindly. */
export function putMode(p: Preconditions): PutMode {
  refuseBoth(p);
  if (p.ifMatch !== undefined) return { kind: "replace", condition: toCondition(p.ifMatch) };
  if (p.ifNoneMatch === "*") return { kind: "create" };
  throw required('PUT needs If-None-Match: "*" to create or If-Match with the current ETag to replace.');
}

type ReadOutcome = "ok" | "not_modified" | "precondition_failed";

/** GET of an existing asset, in RFC 9110 §13.2.2 order: If-Match, then If-None-Match. */
export function evaluateRead(p: Preconditions, opaque: string): ReadOutcome {
  if (p.ifMatch !== undefined && !strongMatch(p.ifMatch, opaque)) return "precondition_failed";
  if (p.ifNoneMatch !== undefined && weakMatch(p.ifNoneMatch, opaque)) return "not_modified";
  return "ok";
}

/**
 * POST /v1/assets and its import: the path names no asset, and has no current representation of
 * its own, so an If-Match there can never hold (RFC 9110 §13.1.1: `*` needs one, a tag one that
 * carries it). Refused before anything is done, rather than read as a create the client did not
 * ask for; If-None-Match always holds there, and changes nothing.
 */
export function refuseIfMatch(p: Preconditions): void {
  if (p.ifMatch === undefined) return;
  throw new ProblemError(
    412,
    "precondition_failed",
    "If-Match names an existing asset's version, and this path names no asset: nothing was done. " +
      "To change an asset conditionally, send If-Match to /v1/assets/{id}.",
  );
}
