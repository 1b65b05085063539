import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { databaseConnection } from "./database-url.ts";

const NEON = "postgres://u:p%40ss@ep-x.neon.tech/db";

describe("databaseConnection", () => {
  it.each(["require", "prefer", "verify-ca", "verify-full"])(
    "sslmode=%s: TLS with certificate and host verified, as node-postgres reads it",
    (mode) => {
      const connection = databaseConnection(`${NEON}?sslmode=${mode}&channel_binding=require`);
      expect(connection.ssl).toEqual({ rejectUnauthorized: true });
      // No libpq parameter reaches the server as a setting; the password stays encoded in the URL.
      expect(connection.url).toBe(NEON);
      expect(decodeURIComponent(new URL(connection.url).password)).toBe("p@ss");
    },
  );

  it("without sslmode, or with sslmode=disable: no TLS, to this machine only", () => {
    for (const host of ["127.0.0.1:5432", "localhost", "[::1]:5432"]) {
      expect(databaseConnection(`postgres://postgres@${host}/app`).ssl).toBe(false);
      expect(databaseConnection(`postgres://u@${host}/db?sslmode=disable`).ssl).toBe(false);
    }
  });

  it("refuses a plain connection to any other host, in one line naming DATABASE_URL and not the password", () => {
    for (const url of [
      "postgres://u:secret@db.internal:5432/app",
      "postgres://u:secret@ep-x.neon.tech/db?sslmode=disable",
      "postgres://u:secret@10.0.0.7/app",
    ]) {
      const refused = (() => {
        try {
          databaseConnection(url);
        } catch (error) {
          return (error as Error).message;
        }
      })();
      expect(refused).toMatch(/^DATABASE_URL reaches \S+ without TLS: add sslmode=require/);
      expect(refused).not.toContain("\n");
      expect(refused).not.toContain("secret");
    }
  });

  it("sslrootcert: the named file as the only CA, or the system's CAs for `system`", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sslrootcert-"));
    try {
      const file = join(dir, "ca.pem");
      await writeFile(file, "-----BEGIN CERTIFICATE-----\n");
      expect(databaseConnection(`${NEON}?sslmode=verify-full&sslrootcert=${file}`).ssl).toEqual({
        rejectUnauthorized: true,
        ca: "-----BEGIN CERTIFICATE-----\n",
      });
      expect(databaseConnection(`${NEON}?sslmode=require&sslrootcert=system`).ssl).toEqual({
        rejectUnauthorized: true,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps the URL's own startup options (Neon's endpoint=…) for the server", () => {
    expect(databaseConnection(`${NEON}?sslmode=require&options=endpoint%3Dep-x`).options).toBe("endpoint=ep-x");
    expect(databaseConnection(`${NEON}?sslmode=require`).options).toBeUndefined();
  });

  it("refuses a mode that would connect without verifying (allow, no-verify)", () => {
    for (const mode of ["allow", "no-verify"]) {
      expect(() => databaseConnection(`${NEON}?sslmode=${mode}`)).toThrow(`sslmode=${mode} is not supported`);
    }
  });
});
