// Where the Neon driver sends each database's requests. The driver's `fetchEndpoint` and
// `fetchFunction` are process-wide settings (neonConfig); a deployment has one database, but a
// process may hold several SQL ports (tests, benchmarks), so both are set once, as functions that
// look up the route registered for the connection string's host and port.
import { type FetchEndpointOptions, neonConfig } from "@neondatabase/serverless";

interface Route {
  endpoint: string;
  fetchFunction: typeof fetch | undefined;
}

/** Neon's own endpoint for a host (https://api.<region host>/sql), as the driver derives it. */
const neonsOwnEndpoint = neonConfig.fetchEndpoint;
const routes = new Map<string, Route>();
const fetchByEndpoint = new Map<string, typeof fetch>();

const ownEndpoint = (host: string, port: string, options?: FetchEndpointOptions) =>
  typeof neonsOwnEndpoint === "function" ? neonsOwnEndpoint(host, port, options) : neonsOwnEndpoint;

neonConfig.fetchEndpoint = (host, port, options) =>
  routes.get(`${host}:${port}`)?.endpoint ?? ownEndpoint(host, String(port), options);
// `fetch` is looked up at each call, not kept: a runtime may install it after this module loads.
neonConfig.fetchFunction = (input: string, init: RequestInit) => (fetchByEndpoint.get(input) ?? fetch)(input, init);

/**
 * Sends the driver's requests for `databaseUrl`'s host and port to `endpoint` (by default Neon's
 * own for that host), through `fetchFunction` when given. Another route for the same host and
 * port would misdirect the first port's requests: it throws instead.
 */
export function routeNeonRequests(
  databaseUrl: string,
  { endpoint, fetchFunction }: { endpoint?: string; fetchFunction?: typeof fetch },
): void {
  if (!endpoint && !fetchFunction) return;
  const { hostname, port } = asHttpUrl(databaseUrl);
  const key = `${hostname}:${port}`;
  endpoint ??= ownEndpoint(hostname, port);
  const known = routes.get(key);
  if (known && (known.endpoint !== endpoint || known.fetchFunction !== fetchFunction)) {
    throw new Error(`Neon requests for ${key} already go to ${known.endpoint}`);
  }
  const knownFetch = fetchByEndpoint.get(endpoint);
  if (fetchFunction && knownFetch && knownFetch !== fetchFunction) {
    throw new Error(`Neon requests to ${endpoint} already have their own fetch`);
  }
  routes.set(key, { endpoint, fetchFunction });
  if (fetchFunction) fetchByEndpoint.set(endpoint, fetchFunction);
}

/** The connection string parsed as the driver parses it: as an http: URL (a normalized host). */
export function asHttpUrl(databaseUrl: string): URL {
  const scheme = new URL(databaseUrl).protocol;
  return new URL(`http:${databaseUrl.slice(scheme.length)}`);
}
