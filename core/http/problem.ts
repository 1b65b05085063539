// RFC 9457 problem details. Every error this API answers is one of these; `code` is the stable
// string clients switch on, so the list below is part of the HTTP contract.

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export const problemTitles = {
  malformed_request: "Malformed request",
  unsupported_media_type: "Unsupported media type",
  validation_failed: "Validation failed",
  payload_too_large: "Payload too large",
  headers_too_large: "Request header fields too large",
  request_timeout: "Request timeout",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  not_implemented: "Not implemented",
  precondition_required: "Precondition required",
  precondition_failed: "Precondition failed",
  asset_locked: "Asset locked",
  external_account_already_linked: "External account already linked",
  provider_already_linked: "Provider already linked",
  link_limit_reached: "Link limit reached",
  provider_not_allowed: "Provider not allowed",
  idempotency_key_reused: "Idempotency key reused",
  rate_limited: "Too many requests",
  database_unavailable: "Database unavailable",
  database_outcome_unknown: "Outcome unknown",
  database_schema_behind: "Database schema behind",
  keys_unavailable: "Signing keys unavailable",
  internal_error: "Internal error",
  misconfigured: "Misconfigured",
} as const;

export type ProblemCode = keyof typeof problemTitles;

export const problemCodes = Object.keys(problemTitles) as ProblemCode[];

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail?: string;
  [extension: string]: unknown;
}

/** Thrown anywhere in a request; the app's error handler answers it as problem+json. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    detail?: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? problemTitles[code]);
    this.name = "ProblemError";
    this.detail = detail;
  }
  readonly detail: string | undefined;

  toProblem(): Problem {
    return problemBody(this.status, this.code, this.detail, this.extensions);
  }
}

function problemBody(
  status: number,
  code: ProblemCode,
  detail?: string,
  extensions: Record<string, unknown> = {},
): Problem {
  return {
    ...extensions,
    type: `urn:problem:${code}`,
    title: problemTitles[code],
    status,
    code,
    ...(detail === undefined ? {} : { detail }),
  };
}

export function problemResponse(error: ProblemError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toProblem()), {
    status: error.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, ...error.headers, ...headers },
  });
}

export const notFound = (detail = "No such resource.") => new ProblemError(404, "not_found", detail);

/** 405 for a method the path does not serve, with the methods it does as `Allow`. */
export function methodNotAllowedProblem(allowed: readonly string[]): ProblemError {
  const allow = allowed.join(", ");
  return new ProblemError(405, "method_not_allowed", `Allowed: ${allow}.`, {}, { allow });
}
