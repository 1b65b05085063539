// What the docs say of the Fastly service's resources is what edge/fastly/bindings.ts names: its
// KV, Config and Secret Stores and its backends, and which settings the Secret Store holds.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTING_NAMES } from "../core/settings/settings.ts";
import {
  CONFIG_STORE,
  JWKS_BACKEND,
  KV_STORE,
  NEON_BACKEND,
  SECRET_KEYS,
  SECRET_STORE,
} from "../edge/fastly/bindings.ts";
import { RATE_LIMIT_CASES } from "./conformance/cases/rate-limits.ts";

const ROOT = resolve(import.meta.dirname, "..");
const read = (page: string) => readFileSync(join(ROOT, "docs", page), "utf8");
const settingsIn = (text: string) =>
  [...new Set(text.match(/\b[A-Z][A-Z0-9_]+\b/g) ?? [])].filter((name) =>
    (SETTING_NAMES as readonly string[]).includes(name),
  );

describe.each(["fastly.md", "deploy.md"])("docs/%s on Fastly's resources", (page) => {
  const text = read(page);

  it("names the stores and backends as bindings.ts does", () => {
    for (const name of [KV_STORE, CONFIG_STORE, SECRET_STORE, NEON_BACKEND, JWKS_BACKEND])
      expect(text, name).toMatch(new RegExp(`\`${name}\`|\\b(store|backend) ${name}\\b`, "i"));
  });

  it("puts in the Secret Store only the secrets bindings.ts keeps there", () => {
    const sentences = text.split(/(?<=\.)\s|\n#/).filter((sentence) => /secret store/i.test(sentence));
    expect(sentences.length).toBeGreaterThan(0);
    for (const sentence of sentences) {
      const secretPart = sentence.slice(sentence.search(/secret store/i)).split(/config store/i)[0] ?? "";
      for (const name of settingsIn(secretPart)) expect(SECRET_KEYS, `${page}: ${sentence}`).toContain(name);
    }
  });
});

// On fastly the conformance suite replaces these cases (Viceroy stubs the Edge Rate Limiter): the
// page says so by name, so that no case goes unrun without a reader knowing which and why.
describe("docs/fastly.md on what Viceroy cannot run", () => {
  it.each(Object.values(RATE_LIMIT_CASES))("names the case %j", (name) => {
    expect(read("fastly.md").replace(/\s+/g, " ")).toContain(`"${name}"`);
  });
});
