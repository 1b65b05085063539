// What If-Match and If-None-Match ask of a link (RFC 9110 §13.1.1-2). Links have no ETag: `*`
// asks whether the link exists, and a listed tag never matches.
import {
  evaluatePreconditions,
  type Preconditions,
  refuseBoth,
  unversionedPreconditions,
} from "../http/preconditions.ts";

type PutMode =
  /** No condition that could fail: link, or re-link one's own (200). */
  | { kind: "link" }
  /** If-None-Match: *: only an account not linked yet. */
  | { kind: "create" }
  /** If-Match: only the caller's existing link, changed when `holds` (`*`; a tag never does). */
  | { kind: "replace"; holds: boolean };

export function putMode(p: Preconditions): PutMode {
  refuseBoth(p);
  if (p.ifMatch !== undefined) return { kind: "replace", holds: p.ifMatch === "*" };
  if (p.ifNoneMatch === "*") return { kind: "create" };
  return { kind: "link" };
}

/** DELETE: whether the conditions hold of the caller's link; a missing one is 404 whatever they say. */
export function holdOfExistingLink(p: Preconditions): boolean {
  refuseBoth(p);
  return evaluatePreconditions(p, {}) === "ok";
}

export const putPreconditions = unversionedPreconditions(
  "\"*\": change the caller's link only, never create one (none: 404; another user's: 409). A list of ETags never matches (links have none): 412 when the link is the caller's.",
  '"*": link only an account not linked yet: 412 when the caller already holds it, nothing changed; another user\'s: 409 external_account_already_linked, as without. A list of ETags always holds: as without.',
);

export const deletePreconditions = unversionedPreconditions(
  '"*": holds (the caller\'s link exists, else 404). A list of ETags never matches (links have none): 412, nothing removed.',
  '"*": never holds of an existing link: 412, nothing removed. A list of ETags always holds: as without.',
);
