// `node dist/node/migrate.js`: the release migrator, beside the server in the Node release and
// with the same production dependencies. It migrates the database DATABASE_URL names, nothing else.
import { SettingsError } from "../../core/settings/error.ts";
import { misconfiguredLine } from "../../core/settings/misconfigured.ts";
import { migrateDatabaseUrl } from "./run.ts";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error(
    misconfiguredLine(new SettingsError("DATABASE_URL", "is not set: the release migrates the database it names")),
  );
  process.exit(1);
}
process.exitCode = await migrateDatabaseUrl(databaseUrl);
