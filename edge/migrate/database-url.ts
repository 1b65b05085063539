// DATABASE_URL as people paste it (Neon's carries sslmode=require and channel_binding=require),
// turned into postgres.js options explicitly: postgres.js reads sslmode=require as TLS without any
// certificate check, and sends every other query parameter to the server as a setting.
import { readFileSync } from "node:fs";
import { isLoopbackHost } from "../../core/lib/loopback.ts";

/** Modes that mean TLS with the certificate and the host verified (node-postgres reads them so). */
const VERIFIED_TLS_MODES = ["require", "prefer", "verify-ca", "verify-full"];
const PLAIN_MODES = [null, "disable"];

export type TlsOption = false | { rejectUnauthorized: true; ca?: string };

/** What the session connects with: the URL without its query, TLS, and the URL's own `options`. */
export interface DatabaseConnection {
  url: string;
  ssl: TlsOption;
  options: string | undefined;
}

export function databaseConnection(databaseUrl: string): DatabaseConnection {
  const url = new URL(databaseUrl);
  const ssl = tlsOption(url.searchParams);
  // The password and every statement would cross the network in clear text.
  if (ssl === false && !isLoopbackHost(url.hostname)) {
    throw new Error(
      `DATABASE_URL reaches ${url.hostname || "its host"} without TLS: add sslmode=require (a plain connection only to 127.0.0.1, ::1 or localhost)`,
    );
  }
  const options = url.searchParams.get("options") ?? undefined;
  url.search = "";
  return { url: url.toString(), ssl, options };
}

function tlsOption(query: URLSearchParams): TlsOption {
  const mode = query.get("sslmode");
  if (PLAIN_MODES.includes(mode)) return false;
  if (!VERIFIED_TLS_MODES.includes(mode!)) throw new Error(`sslmode=${mode} is not supported: use require or disable`);
  // sslrootcert names a private CA's file; "system" (or none) means the system's CAs.
  const rootCert = query.get("sslrootcert");
  if (!rootCert || rootCert === "system") return { rejectUnauthorized: true };
  return { rejectUnauthorized: true, ca: readFileSync(rootCert, "utf8") };
}
