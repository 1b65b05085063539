// Structured logs: one JSON object per line. Callers pass facts, never secrets, tokens or
// connection strings.

export type LogLevel = "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, event: string, fields?: Record<string, unknown>): void;
}

export const consoleLogger: Logger = {
  log(level, event, fields = {}) {
    const line = JSON.stringify({ time: new Date().toISOString(), level, event, ...fields });
    if (level === "info") console.log(line);
    else console.error(line);
  },
};

export const silentLogger: Logger = { log() {} };

/** A message safe to log from any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
