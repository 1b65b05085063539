import { describe, expect, it } from "vitest";
import { PostgresError } from "./backend.ts";
import { refuseStatement } from "./refused-statements.ts";

const refusal = (query: string) => {
  try {
    refuseStatement(query);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("statements the local endpoint does not pass on", () => {
  it.each([
    "SET SESSION AUTHORIZATION postgres",
    'SET SESSION AUTHORIZATION "postgres"',
    "SET SESSION AUTHORIZATION DEFAULT",
    "RESET SESSION AUTHORIZATION",
    "set session authorization 'postgres'",
    "SeT   SeSsIoN\n\tAuThOrIzAtIoN postgres",
    "SET/**/SESSION/* a /* nested */ comment */AUTHORIZATION postgres",
    "SET -- a line comment\nSESSION AUTHORIZATION postgres",
    "SET LOCAL SESSION AUTHORIZATION postgres",
    "SET SESSION SESSION AUTHORIZATION postgres",
    "SET session_authorization = postgres",
    "SET \"session_authorization\" TO 'postgres'",
    'SET "SESSION_AUTHORIZATION" TO postgres',
    "SET ROLE postgres",
    "set role none",
    "SET LOCAL ROLE postgres",
    "SET SESSION ROLE postgres",
    'SET "role" = postgres',
    "SET\u00a0ROLE postgres",
    "RESET ROLE",
    "reset\nrole",
    'RESET "role"',
    "/* leading */ RESET ROLE",
    "DISCARD ALL",
    "discard /* x */ all",
    "SELECT set_config('role', 'postgres', false)",
    "SELECT set_config('session_authorization', 'postgres', false)",
    "SELECT pg_catalog.set_config('ro' || 'le', 'postgres', false)",
    "SELECT set_config($1, $2, false)",
    "SELECT set_config(E'\\x72ole', 'postgres', false)",
    "SELECT set_config(chr(114) || 'ole', 'postgres', false)",
    "SELECT \"set_config\"('ro' || 'le', 'postgres', false)",
    "SELECT U&\"\\0073et_config\"('x', 'y', false)",
    "SELECT set_config(U&'\\0072ole', 'postgres', false)",
    "ALTER ROLE edge_app SET search_path = public",
    "DO $$ BEGIN SET SESSION AUTHORIZATION postgres; END $$",
    "DO $$ BEGIN EXECUTE 'SET R' || 'OLE postgres'; END $$",
    "DO $x$ BEGIN execute convert_from(decode('534554', 'hex'), 'UTF8'); END $x$",
    "CREATE FUNCTION pg_temp.f() RETURNS void LANGUAGE plpgsql AS 'BEGIN EXECUTE $1; END'",
    "CREATE FUNCTION pg_temp.f() RETURNS void LANGUAGE sql SET role = postgres AS 'SELECT 1'",
    "SELECT query_to_xml('SELECT set_con' || 'fig(...)', true, true, '')",
    "SELECT * FROM ts_stat('SELECT to_tsvector(x) FROM t')",
    "PREPARE p AS SELECT set_config($1, 'postgres', false)",
  ])("refuses %j with 42501", (query) => {
    const error = refusal(query);
    expect(error).toBeInstanceOf(PostgresError);
    expect((error as PostgresError).fields).toMatchObject({ code: "42501", severity: "ERROR" });
    expect((error as PostgresError).message).toMatch(/^permission denied: .*run as the app's role/);
  });

  it.each([
    "SELECT 1",
    "SELECT current_user::text",
    "SELECT current_role",
    "SELECT rolsuper FROM pg_roles WHERE rolname = current_user",
    "SELECT set_config('search_path', 'pg_catalog', false)",
    "SET search_path TO pg_catalog",
    "DISCARD TEMP",
    "INSERT INTO documents (tenant_id, contract_id) VALUES ($1, $2) RETURNING doc_number",
    "SELECT pg_has_role('edge_app', 'USAGE')",
  ])("passes %j on", (query) => {
    expect(refusal(query)).toBeUndefined();
  });

  it("refuses COPY however it is introduced, as Neon does (0A000)", () => {
    for (const query of ["COPY documents FROM STDIN", "  /* c */ copy t TO STDOUT", "-- c\n(COPY t FROM STDIN"]) {
      expect((refusal(query) as PostgresError).fields).toMatchObject({
        code: "0A000",
        message: "COPY is not supported over HTTP",
      });
    }
  });
});
