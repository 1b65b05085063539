// The problems the link routes answer where the contract (docs/API-links.md) refuses a request.
import { preconditionFailed } from "../http/preconditions.ts";
import { notFound, ProblemError } from "../http/problem.ts";
import type { LinkLimits } from "./link-settings.ts";
import type { LinkConflictCode } from "./repository.ts";

const conflictDetails: Record<LinkConflictCode, string> = {
  external_account_already_linked: "This external account is linked to another user.",
  provider_already_linked: "You already have another account of this provider linked; unlink it first.",
  link_limit_reached: "You already hold as many links as one user may; unlink one first.",
};

/** The 409 of a link Postgres refused, by the index that refused it. */
export const linkConflict = (code: LinkConflictCode) => new ProblemError(409, code, conflictDetails[code]);

/** Every PUT is judged; links of a provider taken off the list can still be read, listed and unlinked. */
export function requireAllowedProvider({ providers }: LinkLimits, provider: string) {
  if (providers && !providers.has(provider)) {
    const accepted = [...providers].join(", ");
    throw new ProblemError(
      422,
      "provider_not_allowed",
      `This service links accounts of these providers only: ${accepted}.`,
    );
  }
}

export const alreadyHeld = () =>
  preconditionFailed(
    "You already hold this link, and If-None-Match: * links only an account not linked yet. Nothing was changed.",
  );

export const stillLinked = () =>
  preconditionFailed(
    "The link exists, and the condition asked for none or for an ETag (links have none). Nothing was removed.",
  );

export const replaceRefusals = {
  absent: () => notFound("No such link."),
  taken: () => linkConflict("external_account_already_linked"),
  failed: () => preconditionFailed('Links have no ETag: If-Match holds only as "*". Nothing was changed.'),
};
