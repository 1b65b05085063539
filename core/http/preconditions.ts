// The preconditions a request carries (If-Match, If-None-Match: RFC 9110 §13.1.1-2) and how they
// are judged against a resource, with or without an ETag; what each route does with the outcome
// is its own (core/assets/preconditions.ts, the links and documents routes).
import type { Context } from "hono";
import * as v from "valibot";
import type { HeaderSpec, Problems, ResponseSpec } from "../openapi/operations.ts";
import { ETAG_LIST_OR_EMPTY_PATTERN, type EtagList, parseEtagList, strongMatch, weakMatch } from "./etag.ts";
import { fieldValue } from "./field-value.ts";
import { ProblemError } from "./problem.ts";

export interface Preconditions {
  ifMatch?: EtagList;
  ifNoneMatch?: EtagList;
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

// On a write they can never both be meant (If-Match asks for the resource, If-None-Match: * for
// its absence); such a request is a client bug, answered as one rather than as a certain 412.
export function refuseBoth(p: Preconditions): void {
  if (p.ifMatch !== undefined && p.ifNoneMatch !== undefined) {
    throw new ProblemError(400, "malformed_request", "Send either If-Match or If-None-Match, not both.");
  }
}

/** `not_modified`: If-None-Match failed, which a GET answers 304 and any other method 412. */
export type PreconditionOutcome = "ok" | "not_modified" | "precondition_failed";

/** An existing resource: its strong ETag's opaque-tag, if it has one (links and documents have none). */
export interface Current {
  etag?: string;
}

/**
 * The conditions, in RFC 9110 §13.2.2 order (If-Match, then If-None-Match), against an existing
 * resource; the caller has answered 404 for a missing one before asking. `*` matches any
 * existing resource; without an ETag no listed tag matches (If-Match fails, If-None-Match holds).
 */
export function evaluatePreconditions(p: Preconditions, current: Current): PreconditionOutcome {
  const { etag } = current;
  if (p.ifMatch !== undefined && !(p.ifMatch === "*" || (etag !== undefined && strongMatch(p.ifMatch, etag)))) {
    return "precondition_failed";
  }
  if (
    p.ifNoneMatch !== undefined &&
    (p.ifNoneMatch === "*" || (etag !== undefined && weakMatch(p.ifNoneMatch, etag)))
  ) {
    return "not_modified";
  }
  return "ok";
}

export const preconditionFailed = (detail: string) => new ProblemError(412, "precondition_failed", detail);

// Outside this grammar, either header is 400 malformed_request; an empty one counts as absent.
export const etagListOrEmpty = v.pipe(v.string(), v.regex(ETAG_LIST_OR_EMPTY_PATTERN));

/** The headers of a route whose resource has no ETag: `*` is all they can ask of it. */
export const unversionedPreconditions = (ifMatch: string, ifNoneMatch: string) =>
  ({
    "if-match": { description: `${ifMatch} Empty: as if absent.`, schema: etagListOrEmpty },
    "if-none-match": { description: `${ifNoneMatch} Empty: as if absent.`, schema: etagListOrEmpty },
  }) satisfies Record<string, HeaderSpec>;

/** A read of a resource without an ETag (that exists, or is a list, which always does). */
export const unversionedRead = unversionedPreconditions(
  '"*": holds (it exists). A list of ETags never matches (it has none): 412.',
  '"*": 304 (it exists). A list of ETags always holds: 200.',
);

/** What a conditional read of a resource without an ETag may answer besides its own. */
export const notModified: ResponseSpec = { description: 'Not modified: it exists (If-None-Match: "*").' };
export const conditionalReadProblems = { 400: ["malformed_request"], 412: ["precondition_failed"] } satisfies Problems;

/**
 * A GET of an existing resource without an ETag (a list always exists): its 412 or 304, or
 * undefined when it is answered as without conditions.
 */
export function unversionedReadAnswer(c: Context, p: Preconditions): Response | undefined {
  const outcome = evaluatePreconditions(p, {});
  if (outcome === "precondition_failed") {
    throw preconditionFailed('This resource has no ETag: If-Match holds only as "*".');
  }
  return outcome === "not_modified" ? c.body(null, 304) : undefined;
}
