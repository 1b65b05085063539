import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CONFIG_KEYS,
  CONFIG_STORE,
  KV_STORE,
  NEON_BACKEND,
  SECRET_KEYS,
  SECRET_STORE,
} from "../../edge/fastly/bindings.ts";
import { applyOverrides, readLocalServer } from "./manifest.ts";

const PROJECT_MANIFEST = new URL("../../fastly.toml", import.meta.url).pathname;

function manifest(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "manifest-"));
  writeFileSync(join(dir, "fastly.toml"), text);
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ FROM_FILE: "yes" }));
  writeFileSync(join(dir, "secret.txt"), "from-a-file");
  return join(dir, "fastly.toml");
}

describe("fastly.toml [local_server]", () => {
  it("the project's manifest declares every store, key and backend the service opens", () => {
    const config = readLocalServer(PROJECT_MANIFEST, {
      AUTH_SECRET: "a",
      DATABASE_URL: "b",
      OTEL_EXPORTER_OTLP_HEADERS: "c",
    });
    expect(Object.keys(config.kvStores)).toContain(KV_STORE);
    expect(Object.keys(config.backends)).toContain(NEON_BACKEND);
    // Optional settings (the identity provider's) may stay out of the local manifest; a key that
    // is not one of the service's would be a typo the service never reads.
    const configured = Object.keys(config.configStores[CONFIG_STORE]!);
    expect(CONFIG_KEYS).toEqual(expect.arrayContaining(configured));
    expect(configured).toEqual(expect.arrayContaining(["LINK_CACHE_TTL_SECONDS", "NEON_FETCH_ENDPOINT"]));
    expect(config.secretStores[SECRET_STORE]).toEqual({
      AUTH_SECRET: "a",
      DATABASE_URL: "b",
      OTEL_EXPORTER_OTLP_HEADERS: "c",
    });
    expect(Object.keys(config.secretStores[SECRET_STORE]!).sort()).toEqual([...SECRET_KEYS].sort());
  });

  it("reads backends, KV seeds, inline and JSON config stores, and secrets from data, files and the environment", () => {
    const path = manifest(`
[local_server.backends.origin]
url = "http://127.0.0.1:9/prefix"
override_host = "example.com"
[local_server.kv_stores]
cache = [{ key = "k", data = "v", metadata = "m" }]
[local_server.config_stores.inline]
format = "inline-toml"
[local_server.config_stores.inline.contents]
A = "1"
[local_server.config_stores.json]
format = "json"
file = "settings.json"
[local_server.secret_stores]
s = [{ key = "DATA", data = "d" }, { key = "FILE", file = "secret.txt" }, { key = "ENV", env = "MY_SECRET" }]
`);
    expect(readLocalServer(path, { MY_SECRET: "e" })).toEqual({
      backends: { origin: { url: "http://127.0.0.1:9/prefix", overrideHost: "example.com" } },
      kvStores: { cache: [{ key: "k", data: "v", metadata: "m" }] },
      configStores: { inline: { A: "1" }, json: { FROM_FILE: "yes" } },
      secretStores: { s: { DATA: "d", FILE: "from-a-file", ENV: "e" } },
    });
  });

  it("a secret taken from an unset environment variable is an error, not an empty secret", () => {
    const path = manifest('[local_server.secret_stores]\ns = [{ key = "K", env = "UNSET_VARIABLE" }]\n');
    expect(() => readLocalServer(path, {})).toThrow(/UNSET_VARIABLE is not set/);
  });

  it("overrides replace backends and merge into stores", () => {
    const config = readLocalServer(PROJECT_MANIFEST, {
      AUTH_SECRET: "a",
      DATABASE_URL: "b",
      OTEL_EXPORTER_OTLP_HEADERS: "c",
    });
    const merged = applyOverrides(config, {
      backends: { [NEON_BACKEND]: { url: "http://127.0.0.1:5555" } },
      configStores: { [CONFIG_STORE]: { NEON_FETCH_ENDPOINT: "http://127.0.0.1:5555/sql" } },
    });
    expect(merged.backends[NEON_BACKEND]).toEqual({ url: "http://127.0.0.1:5555" });
    expect(merged.configStores[CONFIG_STORE]).toEqual({
      ...config.configStores[CONFIG_STORE],
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:5555/sql",
    });
    expect(merged.configStores[CONFIG_STORE]!.LINK_CACHE_TTL_SECONDS).toBe("300");
    expect(merged.secretStores).toEqual(config.secretStores);
  });
});
