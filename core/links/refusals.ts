// The problems the link routes answer where the contract (docs/API-links.md) refuses a request.
import { preconditionFailed } from "../http/preconditions.ts";
import { notFound, ProblemError } from "../http/problem.ts";
import type { LinkLimits } from "./link-settings.ts";
import type { LinkConflictCode } from "./repository.ts";

const LINKED_TO_ANOTHER = "This external account is linked to another user.";

const conflictDetails: Record<LinkConflictCode, (limits: LinkLimits) => string> = {
  external_account_already_linked: () => LINKED_TO_ANOTHER,
  provider_already_linked: () => "You already have another account of this provider linked; unlink it first.",
  // The bound, as the 413 of an import names its rows: a client can tell a user how many there may be.
  link_limit_reached: ({ maxPerUser }) =>
    `A user may hold at most ${maxPerUser} links, and you have reached that limit; unlink one first.`,
};

/** The 409 of a link Postgres refused, by the index that refused it. */
export const linkConflict = (code: LinkConflictCode, limits: LinkLimits) =>
  new ProblemError(409, code, conflictDetails[code](limits));

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
  taken: () => new ProblemError(409, "external_account_already_linked", LINKED_TO_ANOTHER),
  failed: () => preconditionFailed('Links have no ETag: If-Match holds only as "*". Nothing was changed.'),
};
