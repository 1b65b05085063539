// Connection strings for node-postgres (pg), as people paste them: Neon's carry sslmode=require.
// pg treats require, prefer and verify-ca as verify-full (the certificate and the host are
// checked) and says so in a multi-line warning on every run; naming verify-full keeps that very
// behaviour without the warning. Without sslmode (a local PostgreSQL) nothing changes: no TLS.

const VERIFY_FULL_ALIASES = ["require", "prefer", "verify-ca"];

export function withExplicitSslMode(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return connectionString; // pg's own parser reports what is wrong with it
  }
  const mode = url.searchParams.get("sslmode");
  if (!mode || !VERIFY_FULL_ALIASES.includes(mode) || url.searchParams.get("uselibpqcompat") === "true") {
    return connectionString;
  }
  url.searchParams.set("sslmode", "verify-full");
  return url.toString();
}
