// The SQL port over Neon's serverless driver (@neondatabase/serverless) in its HTTP mode: one
// POST per statement, a batch as one POST the endpoint runs as a transaction.
import { neon } from "@neondatabase/serverless";
import { withDeadline } from "../../core/lib/deadline.ts";
import type { Row, Sql, SqlStatement, TransactionOptions } from "../../core/ports/sql.ts";
import { type Settings, SettingsError } from "../../core/settings/settings.ts";
import { asHttpUrl, routeNeonRequests } from "./endpoints.ts";
import { redactor, toPortError } from "./port-errors.ts";

interface NeonSqlOptions {
  databaseUrl: string;
  /** Where requests go instead of Neon's own endpoint, e.g. http://127.0.0.1:4444/sql. */
  fetchEndpoint?: string;
  /** Replaces `fetch` for this database's requests (Fastly sends them to a named backend). */
  fetchFunction?: typeof fetch;
  /** Each round trip is abandoned after this long: its outcome is then unknown. */
  timeoutMs?: number;
}

/** How long a round trip may take by default, above the local endpoint's own limits (4 s queue, statement_timeout). */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Hosts whose SQL-over-HTTP endpoint the driver derives itself: https://api.<region host>/sql. */
const NEON_HOST = /\.neon\.(tech|build)$/i;

/** The SQL port over the Neon driver: one HTTP round trip per call. */
export function createNeonSql(options: NeonSqlOptions): Sql {
  const databaseUrl = checkedConnectionString(options.databaseUrl);
  routeNeonRequests(databaseUrl, { endpoint: options.fetchEndpoint, fetchFunction: options.fetchFunction });
  const sql = neon(databaseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const redact = redactor(databaseUrl);

  return {
    async query<T extends Row = Row>(text: string, params: readonly unknown[] = []) {
      try {
        return await withDeadline(
          (signal) => sql.query(text, [...params], { fetchOptions: { signal } }) as Promise<T[]>,
          timeoutMs,
        );
      } catch (error) {
        throw toPortError(error, redact);
      }
    },
    async transaction(
      statements: readonly SqlStatement[],
      { isolationLevel, readOnly, deferrable }: TransactionOptions = {},
    ) {
      try {
        return (await withDeadline(
          (signal) =>
            sql.transaction(
              statements.map((statement) => sql.query(statement.text, [...(statement.params ?? [])])),
              { isolationLevel, readOnly, deferrable, fetchOptions: { signal } },
            ),
          timeoutMs,
        )) as Row[][];
      } catch (error) {
        throw toPortError(error, redact);
      }
    },
  };
}

/**
 * The SQL port a runtime builds from its settings. Without DATABASE_URL it cannot start; a
 * database that is not Neon's has no endpoint to derive, so it needs NEON_FETCH_ENDPOINT.
 */
export function neonSqlFromSettings(settings: Settings, options: Pick<NeonSqlOptions, "fetchFunction"> = {}): Sql {
  const { databaseUrl, neonFetchEndpoint } = settings;
  if (!databaseUrl) throw new SettingsError("DATABASE_URL", "is not set");
  if (!neonFetchEndpoint && !isNeonHost(databaseUrl)) {
    throw new SettingsError(
      "NEON_FETCH_ENDPOINT",
      "is not set, and DATABASE_URL's host is not Neon's (*.neon.tech): set it to the SQL-over-HTTP endpoint in front of that database",
    );
  }
  return createNeonSql({ databaseUrl, fetchEndpoint: neonFetchEndpoint, ...options });
}

function isNeonHost(databaseUrl: string): boolean {
  try {
    return NEON_HOST.test(asHttpUrl(databaseUrl).hostname);
  } catch {
    return false;
  }
}

/**
 * The driver checks the connection string on every query and would refuse each one: it is
 * checked once here instead, by its setting's name and never its value. Neon needs a user, a
 * host and a database.
 */
function checkedConnectionString(databaseUrl: string): string {
  const refused = () => new SettingsError("DATABASE_URL", "must be postgres://user[:password]@host/database");
  let url: URL;
  try {
    url = asHttpUrl(databaseUrl);
  } catch {
    throw refused();
  }
  const scheme = databaseUrl.slice(0, databaseUrl.indexOf(":"));
  const valid =
    (scheme === "postgres" || scheme === "postgresql") &&
    url.username !== "" &&
    url.hostname !== "" &&
    url.pathname.length > 1;
  if (!valid) throw refused();
  return databaseUrl;
}
