// The role requests run as: the app's rights (read and write its tables), never a superuser, so
// SQL sent to the local endpoint cannot reach server files or programs, as on Neon where the app
// connects as a role without superuser rights.
import { createHash } from "node:crypto";
import type { SqlBackend } from "./neon-endpoint/backend.ts";

export const APP_ROLE = "edge_app";

/**
 * Grants after every migration run, so tables added by a later migration are covered too; in the
 * schema the migrations went to (public, or a scratch schema pinned by the URL's search_path).
 */
const GRANTS = `DO $$ BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO ${APP_ROLE}', current_schema());
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA %I TO ${APP_ROLE}', current_schema());
  EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA %I TO ${APP_ROLE}', current_schema());
END $$`;

/**
 * The settings of the migrating role in this database (sql/0016: the project's timeouts), for
 * the app role too: they are set per role, and requests run as this one.
 */
const MIGRATOR_SETTINGS = `DO $$ DECLARE setting text; BEGIN
  FOR setting IN SELECT unnest(s.setconfig) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
    WHERE d.datname = current_database() AND s.setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)
  LOOP
    EXECUTE format('ALTER ROLE ${APP_ROLE} IN DATABASE %I SET %I = %L', current_database(),
      split_part(setting, '=', 1), substr(setting, strpos(setting, '=') + 1));
  END LOOP;
END $$`;

/**
 * Creates the role (once per server: roles are cluster-wide) and grants it the app's rights in
 * the backend's database. `password` is for PostgreSQL servers that require one.
 */
export async function prepareAppRole(backend: SqlBackend, password?: string): Promise<void> {
  const login = backend.kind === "postgres" ? ` LOGIN${password ? ` PASSWORD '${password}'` : ""}` : "";
  const create =
    `DO $$ BEGIN CREATE ROLE ${APP_ROLE}${login}; ` +
    "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$";
  // Concurrent test stacks create the role or grant on it at the same time; PostgreSQL may
  // answer "tuple concurrently updated" to one of them: that one tries again.
  for (let attempt = 1; ; attempt++) {
    try {
      await backend.exec(`${create};\n${GRANTS};\n${MIGRATOR_SETTINGS}`);
      return;
    } catch (error) {
      if (attempt >= 5 || !/concurrently/.test(String((error as Error).message))) throw error;
      await new Promise((done) => setTimeout(done, 50 * attempt));
    }
  }
}

/**
 * The role's PostgreSQL password, derived from the administrator's so that every stack started
 * against one server agrees on it without storing it anywhere (hex: safe inside a SQL literal).
 */
export function appRolePassword(adminPassword: string): string | undefined {
  if (!adminPassword) return undefined;
  return createHash("sha256").update(`${APP_ROLE}:${adminPassword}`).digest("hex");
}
