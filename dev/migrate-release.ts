// `node dist/node/migrate.js`: `npm run migrate` as the Node release build holds it, beside the
// server and with the same production dependencies. It migrates DATABASE_URL only: the embedded
// PGlite is a development database, and its package is not in a release (the build leaves it out).

import { SettingsError } from "../core/settings/error.ts";
import { misconfiguredLine } from "../core/settings/misconfigured.ts";

if (!process.env.DATABASE_URL) {
  console.error(
    misconfiguredLine(new SettingsError("DATABASE_URL", "is not set: the release migrates the database it names")),
  );
  process.exit(1);
}
await import("./migrate-cli.ts");
