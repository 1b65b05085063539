// Every secret this repository writes down is public: a deployment must refuse it. Any string
// literal of 32 bytes or more on a line that speaks of a secret, in any tracked source or document,
// is taken as one, and AUTH_SECRET_SCOPE=deployment must refuse it.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SettingsError } from "../core/settings/error.ts";
import { parseAuthSettings } from "../core/tokens/settings.ts";

const ROOT = resolve(import.meta.dirname, "..");
const LITERAL = /(["'`])([^"'`\s$\\]{32,})\1/g;

/** The 32-byte-or-longer literals written beside the word "secret" in tracked files. */
function writtenSecrets(): Set<string> {
  const files = execFileSync("git", ["ls-files", "*.ts", "*.md", "*.toml", "*.json"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => file && !file.startsWith("bench/results/") && file !== "package-lock.json");
  const found = new Set<string>();
  for (const file of files) {
    for (const line of readFileSync(join(ROOT, file), "utf8").split("\n")) {
      if (!/secret/i.test(line)) continue;
      for (const [, , literal] of line.matchAll(LITERAL)) {
        // Setting names and paths are no secrets.
        if (!/^[A-Z0-9_]+$/.test(literal!) && !literal!.includes("/")) found.add(literal!);
      }
    }
  }
  return found;
}

describe("secrets written in this repository", () => {
  const secrets = writtenSecrets();

  it("are found (the test secret among them)", () => {
    expect(secrets).toContain("test-secret-that-is-at-least-32-bytes-long!");
  });

  it("are each refused as a deployment's AUTH_SECRET", () => {
    const taken = [...secrets].filter((secret) => {
      try {
        parseAuthSettings({
          AUTH_SECRET: secret,
          AUTH_SECRET_SCOPE: "deployment",
          AUTH_ISSUER: "https://api.example/",
          AUTH_AUDIENCE: "edge-api",
        });
        return true;
      } catch (error) {
        expect(error).toBeInstanceOf(SettingsError);
        return false;
      }
    });
    expect(taken).toEqual([]);
  });
});
