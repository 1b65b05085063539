import { createPgBackend } from "./neon/pg-backend.ts";
import { createPgliteBackend } from "./neon/pglite-backend.ts";
import { migrate } from "./migrate.ts";
import { startNeonEndpoint, type NeonEndpoint } from "./neon/endpoint.ts";
import type { SqlBackend } from "./neon/backend.ts";

export interface LocalStackOptions {
  /** A postgres:// URL selects the real PostgreSQL; otherwise embedded PGlite. */
  databaseUrl?: string;
  /** PGlite's data folder; omitted = in memory. */
  dataDir?: string;
  /** Bound on the PostgreSQL pool behind the endpoint. */
  poolSize?: number;
  /** How long a statement may wait for a pooled PostgreSQL connection. */
  connectionTimeoutMillis?: number;
  endpointPort?: number;
  /** Each round trip to the endpoint is held this long (the benchmark's --db-rtt). */
  roundTripDelayMs?: number;
}

export interface LocalStack {
  backend: SqlBackend;
  endpoint: NeonEndpoint;
  /** What the Neon driver is configured with: the connection string and where it posts. */
  databaseUrl: string;
  /** The real PostgreSQL behind the endpoint (undefined for PGlite), for direct sessions. */
  postgresUrl: string | undefined;
  neonFetchEndpoint: string;
  close(): Promise<void>;
}

export const isPostgresUrl = (url: string | undefined): url is string => !!url && /^postgres(ql)?:\/\//.test(url);

/** Database (migrated) + the Neon-compatible endpoint in front of it. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const backend = isPostgresUrl(options.databaseUrl)
    ? createPgBackend(options.databaseUrl, {
        max: options.poolSize,
        connectionTimeoutMillis: options.connectionTimeoutMillis,
      })
    : await createPgliteBackend(options.dataDir);
  try {
    await migrate(backend);
    const endpoint = await startNeonEndpoint({ backend, port: options.endpointPort, roundTripDelayMs: options.roundTripDelayMs });
    return {
      backend,
      endpoint,
      // The endpoint serves one fixed database whatever the string names; the driver still
      // needs a well-formed one. Naming the endpoint's own host:port keeps several stacks apart
      // in one process, and the real password never travels to the endpoint.
      databaseUrl: `postgres://local:local@127.0.0.1:${endpoint.port}/${backend.kind}`,
      postgresUrl: isPostgresUrl(options.databaseUrl) ? options.databaseUrl : undefined,
      neonFetchEndpoint: endpoint.url,
      async close() {
        await endpoint.close();
        await backend.close();
      },
    };
  } catch (error) {
    await backend.close();
    throw error;
  }
}
