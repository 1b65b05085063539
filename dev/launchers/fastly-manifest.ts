// The fastly.toml a run gives Viceroy: the project's `[local_server]` (backends, kv_stores,
// config_stores, secret_stores) with this run's values over it. The `neon`, `jwks` and `otel`
// backends point at the run's endpoints, the config store holds the run's settings, the KV store starts
// with the entries planted, and the secrets stay out of the file: the manifest names an
// environment variable for each, and Viceroy's environment carries the values.
import { readFileSync } from "node:fs";
import { parse, stringify, type TomlTable } from "smol-toml";
import type { RawSettings } from "../../core/settings/settings.ts";
import {
  CONFIG_KEYS,
  CONFIG_STORE,
  JWKS_BACKEND,
  KV_STORE,
  NEON_BACKEND,
  OTEL_BACKEND,
  SECRET_STORE,
} from "../../edge/fastly/bindings.ts";
import { fastlyKey } from "../../edge/kv/fastly-keys.ts";
import type { KvEntries } from "./planted-kv.ts";

interface LocalServer {
  backends: Record<string, { url: string }>;
  kv_stores: Record<string, { key: string; data: string }[]>;
  config_stores: Record<string, { format: string; contents: Record<string, string> }>;
  secret_stores: Record<string, { key: string; env: string }[]>;
}

export interface RunManifest {
  /** fastly.toml for this run: its `[local_server]` and what names the service. */
  toml: string;
  /** The variables the manifest's secrets are read from, with this run's values ("" when unset). */
  secretEnv: Record<string, string>;
}

export function runManifest(projectManifest: string, env: RawSettings, kvEntries: KvEntries = {}): RunManifest {
  const manifest = parse(readFileSync(projectManifest, "utf8"));
  const local = manifest.local_server as unknown as LocalServer;
  const neon = backendAt(env.NEON_FETCH_ENDPOINT);
  const jwks = backendAt(env.AUTH_JWKS_URL);
  const otel = backendAt(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (neon) local.backends[NEON_BACKEND] = neon;
  if (jwks) local.backends[JWKS_BACKEND] = jwks;
  if (otel) local.backends[OTEL_BACKEND] = otel;
  // Seeded as the KV adapter (edge/kv/fastly-kv.ts) names its keys.
  const seeds = Object.entries(kvEntries).map(([key, data]) => ({ key: fastlyKey(key), data }));
  local.kv_stores[KV_STORE] = [...(local.kv_stores[KV_STORE] ?? []), ...seeds];
  const settings = local.config_stores[CONFIG_STORE]!;
  for (const key of CONFIG_KEYS) if (env[key] !== undefined) settings.contents[key] = env[key]!;
  const secretEnv = Object.fromEntries(
    local.secret_stores[SECRET_STORE]!.map(({ key, env: name }) => [name, env[key] ?? ""]),
  );
  const { manifest_version, name, language } = manifest;
  const toml = stringify({ manifest_version, name, language, local_server: local as unknown as TomlTable });
  return { toml: `${toml}\n`, secretEnv };
}

/**
 * A backend at the origin of `url`; none for a setting that is not an http(s) URL, which the
 * service itself refuses (500 misconfigured, naming it) and Viceroy must still start for.
 */
function backendAt(url: string | undefined): { url: string } | undefined {
  const parsed = url ? URL.parse(url) : null;
  return parsed && /^https?:$/.test(parsed.protocol) ? { url: parsed.origin } : undefined;
}
