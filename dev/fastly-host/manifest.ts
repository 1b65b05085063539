import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse, TomlDate, type TomlTable, type TomlValue } from "smol-toml";

// What `fastly.toml`'s `[local_server]` section configures, read the way Viceroy reads it.

export interface BackendConfig {
  /** Scheme, host and port to connect to, plus an optional path prefix. */
  url: string;
  overrideHost?: string;
}

interface KvSeed {
  key: string;
  data: string;
  metadata?: string;
}

export interface LocalServerConfig {
  backends: Record<string, BackendConfig>;
  kvStores: Record<string, KvSeed[]>;
  configStores: Record<string, Record<string, string>>;
  secretStores: Record<string, Record<string, string>>;
}

/** Values a launcher puts over the manifest: the run's backend URLs and settings. */
export interface LocalServerOverrides {
  backends?: Record<string, BackendConfig>;
  configStores?: Record<string, Record<string, string>>;
  secretStores?: Record<string, Record<string, string>>;
}

/** `env` decides the secrets declared as `{ key, env = "NAME" }`, as Viceroy's environment does. */
export function readLocalServer(
  manifestPath: string,
  env: Record<string, string | undefined> = process.env,
): LocalServerConfig {
  const manifest = parse(readFileSync(manifestPath, "utf8"));
  const local = table(manifest.local_server ?? {}, "local_server");
  const base = dirname(resolve(manifestPath));
  return {
    backends: mapValues(table(local.backends ?? {}, "backends"), (value, name) => {
      const backend = table(value, `backends.${name}`);
      return {
        url: text(backend.url, `backends.${name}.url`),
        ...(backend.override_host === undefined ? {} : { overrideHost: text(backend.override_host, "override_host") }),
      };
    }),
    kvStores: mapValues(table(local.kv_stores ?? {}, "kv_stores"), (value, name) =>
      list(value, `kv_stores.${name}`).map((item) => {
        const entry = table(item, `kv_stores.${name}[]`);
        if (entry.data === undefined) unsupported(`kv_stores.${name}: only inline "data" entries`);
        return {
          key: text(entry.key, "key"),
          data: text(entry.data, "data"),
          ...(entry.metadata === undefined ? {} : { metadata: text(entry.metadata, "metadata") }),
        };
      }),
    ),
    configStores: mapValues(table(local.config_stores ?? {}, "config_stores"), (value, name) =>
      configStore(table(value, `config_stores.${name}`), name, base),
    ),
    secretStores: mapValues(table(local.secret_stores ?? {}, "secret_stores"), (value, name) =>
      Object.fromEntries(
        list(value, `secret_stores.${name}`).map((item) => {
          const entry = table(item, `secret_stores.${name}[]`);
          return [text(entry.key, "key"), secretValue(entry, name, base, env)];
        }),
      ),
    ),
  };
}

export function applyOverrides(config: LocalServerConfig, overrides: LocalServerOverrides = {}): LocalServerConfig {
  const merge = <T>(a: Record<string, Record<string, T>>, b: Record<string, Record<string, T>> = {}) =>
    Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [k, { ...a[k], ...b[k] }]));
  return {
    backends: { ...config.backends, ...overrides.backends },
    kvStores: config.kvStores,
    configStores: merge(config.configStores, overrides.configStores),
    secretStores: merge(config.secretStores, overrides.secretStores),
  };
}

function configStore(store: TomlTable, name: string, base: string): Record<string, string> {
  if (store.format === "inline-toml")
    return mapValues(table(store.contents ?? {}, `${name}.contents`), (v, k) => text(v, k));
  if (store.format === "json" && store.file !== undefined) {
    const json: unknown = JSON.parse(readFileSync(resolve(base, text(store.file, "file")), "utf8"));
    return mapValues(json as TomlTable, (v, k) => text(v, k));
  }
  return unsupported(`config_stores.${name}: format must be "inline-toml" or "json" with a file`);
}

function secretValue(entry: TomlTable, store: string, base: string, env: Record<string, string | undefined>): string {
  if (entry.data !== undefined) return text(entry.data, "data");
  if (entry.file !== undefined) return readFileSync(resolve(base, text(entry.file, "file")), "utf8");
  if (entry.env !== undefined) {
    const value = env[text(entry.env, "env")];
    if (value === undefined)
      throw new Error(`secret_stores.${store}: environment variable ${String(entry.env)} is not set`);
    return value;
  }
  return unsupported(`secret_stores.${store}: an entry needs data, file or env`);
}

const mapValues = <T>(record: TomlTable, f: (value: TomlValue, key: string) => T): Record<string, T> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value, key)]));

function table(value: TomlValue, where: string): TomlTable {
  if (typeof value !== "object" || Array.isArray(value) || value instanceof TomlDate)
    throw new Error(`fastly.toml: ${where} must be a table`);
  return value;
}

function list(value: TomlValue, where: string): TomlValue[] {
  if (!Array.isArray(value)) return unsupported(`${where} must be an inline array`);
  return value;
}

function text(value: TomlValue | undefined, where: string): string {
  if (typeof value !== "string") throw new Error(`fastly.toml: ${where} must be a string`);
  return value;
}

function unsupported(what: string): never {
  throw new Error(`fastly.toml: unsupported by the test host: ${what}`);
}
