// What a link is, and how a request names one. Normalization happens here, once: everything
// downstream (SQL, KV keys, responses) sees the canonical provider and external account id.
import * as v from "valibot";
import { validate } from "../http/body.ts";
import { pageLimit } from "../http/pagination.ts";
import { jsonObject, maxCodePoints, notBlank, printable, publishedAs, TRIMMED_CLASS } from "../http/validation.ts";
import type { Principal } from "../tokens/auth.ts";

export interface Link {
  provider: string;
  externalAccountId: string;
  userId: string;
  displayName: string | null;
  linkedAt: string;
}

/** The canonical name of an external account: lower-case provider, trimmed id. */
export interface LinkTarget {
  provider: string;
  externalAccountId: string;
}

const MAX_EXTERNAL_ACCOUNT_ID_LENGTH = 256;
const MAX_DISPLAY_NAME_LENGTH = 200;

// Checked before lower-casing, so only ASCII qualifies: "\u212A" (Kelvin sign) lower-cases to
// "k" and must not become a second spelling of a provider.
const PROVIDER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A provider as stored: lower-case. */
const PROVIDER_CURSOR = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const TargetSchema = v.object({
  provider: v.pipe(
    v.string(),
    v.trim(),
    v.regex(PROVIDER, "must be 1-64 of A-Z a-z 0-9 . _ - starting with a letter or digit"),
    v.toLowerCase(),
  ),
  externalAccountId: v.pipe(
    v.string(),
    v.trim(),
    notBlank(v.check((id: string) => id !== "", "must not be blank")),
    // A dot-segment would be resolved away by every client (RFC 3986 §5.2.4): its Location could not name it.
    publishedAs(
      { not: { pattern: `^[${TRIMMED_CLASS}]*\\.\\.?[${TRIMMED_CLASS}]*$` } },
      v.check((id: string) => id !== "." && id !== "..", "must not be . or .."),
    ),
    maxCodePoints(MAX_EXTERNAL_ACCOUNT_ID_LENGTH),
    printable(),
  ),
});

/** PUT body. Unknown fields are refused so a misspelt `displayName` is not silently dropped. */
export const LinkBodySchema = jsonObject(
  // With every field optional, `[]` would otherwise pass.
  v.strictObject({
    displayName: v.optional(v.nullable(v.pipe(v.string(), maxCodePoints(MAX_DISPLAY_NAME_LENGTH), printable()))),
  }),
);

export const LookupQuerySchema = v.object({
  consistency: v.optional(v.picklist(["strong", "eventual"], "must be strong or eventual"), "eventual"),
});

/**
 * GET /v1/me/links: a page of the caller's links in provider order. The cursor is opaque to
 * clients (the `next` of the page before); it is the last provider of that page, which the
 * user-provider index orders and finds.
 */
export const UserLinksQuerySchema = v.object({
  after: v.optional(v.pipe(v.string(), v.regex(PROVIDER_CURSOR, "must be the `next` of an earlier page"))),
  limit: pageLimit,
});

export function normalizeTarget(input: { provider: string; externalAccountId: string }): LinkTarget {
  return validate(TargetSchema, input);
}

export const linkLocation = (target: LinkTarget) =>
  `/v1/links/${encodeURIComponent(target.provider)}/${encodeURIComponent(target.externalAccountId)}`;

/** Of a link of the caller's tenant: `service` and `admin` tokens see any, a `user` token only its own. */
export const canSee = (principal: Principal, link: Link) =>
  principal.role !== "user" || link.userId === principal.userId;

export const sameTarget = (a: LinkTarget, b: LinkTarget) =>
  a.provider === b.provider && a.externalAccountId === b.externalAccountId;

export const sameLink = (a: Link, b: Link) =>
  sameTarget(a, b) && a.userId === b.userId && a.displayName === b.displayName && a.linkedAt === b.linkedAt;
