// Runtimes without a start-up step (Workers, Fastly) build their app on the first request; when a
// setting is unusable, every request gets this answer instead of a stack trace.

import { ProblemError, problemResponse } from "../http/problem.ts";
import type { Logger } from "../log.ts";
import { SettingsError } from "./error.ts";

/**
 * 500 `misconfigured` naming only the setting: why it is unusable (a login refusal, a conflict
 * with another setting) goes to the log line, for the operator, not to whoever sent the request.
 * Other errors are rethrown.
 */
export function misconfiguredResponse(error: unknown, logger: Logger): Response {
  return problemResponse(misconfiguredProblem(error, logger));
}

/** The problem misconfiguredResponse answers with, for an app that makes the response itself. */
export function misconfiguredProblem(error: unknown, logger: Logger): ProblemError {
  if (!(error instanceof SettingsError)) throw error;
  logger.log("error", "misconfigured", { setting: error.setting, error: error.message });
  const detail = `The service is misconfigured: see ${error.setting} in its log.`;
  return new ProblemError(500, "misconfigured", detail, { setting: error.setting });
}

/** What a runtime with a start-up step prints before it exits: one line, no stack trace. */
export const misconfiguredLine = (error: SettingsError) => `Misconfigured: ${error.message}.`;
