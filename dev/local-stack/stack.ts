import { randomBytes } from "node:crypto";
import { migrate } from "../../edge/migrate/migrate.ts";
import { postgresMigrationSession } from "../../edge/migrate/postgres.ts";
import { APP_ROLE, appRolePassword, prepareAppRole } from "./app-role.ts";
import { type DataLock, lockDataFolder } from "./data-lock.ts";
import type { SqlBackend } from "./neon-endpoint/backend.ts";
import { type NeonEndpoint, startNeonEndpoint } from "./neon-endpoint/endpoint.ts";
import { createPgBackend } from "./neon-endpoint/pg-backend.ts";
import { createPgliteBackend } from "./neon-endpoint/pglite-backend.ts";

export interface LocalStackOptions {
  /** A postgres:// URL selects the real PostgreSQL; otherwise embedded PGlite. */
  databaseUrl?: string;
  /** PGlite's data folder (locked for this process while the stack runs); omitted = in memory. */
  dataDir?: string;
  /** Bound on the PostgreSQL pool behind the endpoint. */
  poolSize?: number;
  /** How long a statement may queue for a pooled PostgreSQL connection before a 503. */
  connectionTimeoutMillis?: number;
  /** The endpoint's port (`--neon-port`); 0 or omitted picks a free one. */
  endpointPort?: number;
  /** Browser origins the endpoint answers with CORS (none by default). */
  allowedOrigins?: readonly string[];
  /** Each round trip to the endpoint is held this long (the benchmark's --db-rtt). */
  roundTripDelayMs?: number;
  /**
   * Extra SQL run as the database's owner after the migrations, before the app role's grants
   * (tables of a benchmark): requests themselves run as the app role, which cannot create tables.
   */
  ownerSql?: string;
}

export interface LocalStack {
  backend: SqlBackend;
  endpoint: NeonEndpoint;
  /** What the SQL port is configured with: app role, this start's password, where it posts. */
  databaseUrl: string;
  /** The real PostgreSQL behind the endpoint (undefined for PGlite), for direct sessions. */
  postgresUrl: string | undefined;
  neonFetchEndpoint: string;
  /** The two settings that point a runtime at this stack: spread them into its environment. */
  settings: { DATABASE_URL: string; NEON_FETCH_ENDPOINT: string };
  /**
   * Runs a script as the database's owner (tests that change the schema: requests cannot), then
   * grants the app role its rights on whatever the script created.
   */
  ownerExec(script: string): Promise<void>;
  /** Finishes in-flight requests, then closes the database cleanly and releases its folder. */
  close(): Promise<void>;
}

export const isPostgresUrl = (url: string | undefined): url is string => !!url && /^postgres(ql)?:\/\//.test(url);

/** Database (migrated, with the app's role) + the Neon-compatible endpoint in front of it. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const lock =
    options.dataDir && !isPostgresUrl(options.databaseUrl) ? await lockDataFolder(options.dataDir) : undefined;
  let backend: SqlBackend | undefined;
  try {
    const opened = await openBackend(options, lock);
    backend = opened.backend;
    // A fresh random password per start: only what this process hands it out can use the endpoint.
    const password = randomBytes(24).toString("base64url");
    const database = opened.database;
    const endpoint = await startNeonEndpoint({
      backend,
      port: options.endpointPort,
      credentials: { password, user: APP_ROLE, database },
      allowedOrigins: options.allowedOrigins,
      roundTripDelayMs: options.roundTripDelayMs,
    });
    const served = backend;
    // Naming the endpoint's own host:port keeps several stacks apart in one process.
    const databaseUrl = `postgres://${APP_ROLE}:${password}@127.0.0.1:${endpoint.port}/${encodeURIComponent(database)}`;
    return {
      backend,
      endpoint,
      databaseUrl,
      postgresUrl: isPostgresUrl(options.databaseUrl) ? options.databaseUrl : undefined,
      neonFetchEndpoint: endpoint.url,
      settings: { DATABASE_URL: databaseUrl, NEON_FETCH_ENDPOINT: endpoint.url },
      async ownerExec(script) {
        if (!isPostgresUrl(options.databaseUrl)) {
          await served.exec(script); // PGlite's exec runs as its superuser
          return prepareAppRole(served);
        }
        const owner = createPgBackend(options.databaseUrl, { max: 1 });
        try {
          await owner.exec(script);
          await prepareAppRole(owner, opened.rolePassword);
        } finally {
          await owner.close();
        }
      },
      async close() {
        try {
          await endpoint.close();
          await served.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (error) {
    await backend?.close();
    lock?.release();
    throw error;
  }
}

/** Migrates as the given (owner) user, then serves as the app role. */
async function openBackend(options: LocalStackOptions, lock: DataLock | undefined) {
  if (!isPostgresUrl(options.databaseUrl)) {
    const backend = await createPgliteBackend(lock ? options.dataDir : undefined);
    try {
      await migrate(backend);
      if (options.ownerSql) await backend.exec(options.ownerSql);
      await prepareAppRole(backend);
      backend.serveAs(APP_ROLE);
    } catch (error) {
      await backend.close();
      throw error;
    }
    return { backend: backend as SqlBackend, database: "pglite", rolePassword: undefined };
  }
  const adminUrl = new URL(options.databaseUrl);
  const rolePassword = appRolePassword(decodeURIComponent(adminUrl.password));
  // Migrated as `npm run migrate` does: an index built CONCURRENTLY takes what it takes, beyond
  // the owner's statement timeout (sql/0016) and the pool's own deadline.
  const migrator = postgresMigrationSession(options.databaseUrl);
  try {
    await migrate(migrator);
  } finally {
    await migrator.close();
  }
  const admin = createPgBackend(options.databaseUrl, { max: 1 });
  try {
    if (options.ownerSql) await admin.exec(options.ownerSql);
    await prepareAppRole(admin, rolePassword);
  } finally {
    await admin.close();
  }
  const roleUrl = new URL(adminUrl);
  roleUrl.username = APP_ROLE;
  roleUrl.password = rolePassword ?? "";
  const backend = createPgBackend(roleUrl.toString(), {
    max: options.poolSize,
    connectionTimeoutMillis: options.connectionTimeoutMillis,
  });
  return { backend, database: decodeURIComponent(adminUrl.pathname.slice(1)) || "postgres", rolePassword };
}
