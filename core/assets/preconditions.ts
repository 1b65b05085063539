// Which precondition a request carries, and what each asset route requires (RFC 9110 §13, RFC 6585 §3).
import { type EtagList, strongTags } from "../http/etag.ts";
import {
  evaluatePreconditions,
  type PreconditionOutcome,
  type Preconditions,
  refuseBoth,
} from "../http/preconditions.ts";
import { ProblemError } from "../http/problem.ts";

/** What a conditional write sends to SQL: `*`, or the strong opaque-tags that may match. */
export interface MatchCondition {
  any: boolean;
  tags: string[];
}

const required = (detail: string) => new ProblemError(428, "precondition_required", detail);

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

/** GET of an existing asset, in RFC 9110 §13.2.2 order: If-Match, then If-None-Match. */
export const evaluateRead = (p: Preconditions, opaque: string): PreconditionOutcome =>
  evaluatePreconditions(p, { etag: opaque });

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
