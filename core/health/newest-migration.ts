/**
 * The newest file of sql/ this release was written against: /readyz answers 503 until the
 * database has recorded it. Migrations only expand (docs/migrations.md), so the code runs on any
 * schema that holds it, a later release's included. core/ reads no files (it ships as one bundle
 * to every runtime), so the name is written here; core/health/newest-migration.test.ts keeps it
 * equal to the newest file in sql/.
 */
export const NEWEST_MIGRATION = "0018_documents_dated_when_numbered.sql";
