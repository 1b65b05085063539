// `npm start -- --runtime fastly` and the conformance suite: the compiled service (bin/main.wasm,
// built here when missing or stale) served by Viceroy when it is on PATH, otherwise by the Fastly
// test host (dev/fastly-host/), with fastly.toml's [local_server] pointed at this run's database.
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { RawSettings } from "../../core/settings/settings.ts";
import {
  CONFIG_KEYS,
  CONFIG_STORE,
  JWKS_BACKEND,
  KV_STORE,
  NEON_BACKEND,
  OTEL_BACKEND,
  SECRET_KEYS,
  SECRET_STORE,
} from "../../edge/fastly/bindings.ts";
import { fastlyKey } from "../../edge/kv/fastly-keys.ts";
import { ensureFastlyWasm, ROOT } from "../build/fastly.ts";
import { startFastlyHost } from "../fastly-host/host.ts";
import {
  applyOverrides,
  type LocalServerConfig,
  type LocalServerOverrides,
  readLocalServer,
} from "../fastly-host/manifest.ts";
import { startViceroy } from "../fastly-host/viceroy.ts";
import type { KvEntries } from "./planted-kv.ts";

const MANIFEST_PATH = join(ROOT, "fastly.toml");

export async function startFastlyRuntime(
  env: RawSettings,
  { port = 8787, kvEntries = {} }: { port?: number; kvEntries?: KvEntries } = {},
) {
  const wasmPath = await ensureFastlyWasm();
  const config = localServerConfig(env);
  // Seeded as the KV adapter (edge/kv/fastly-kv.ts) names its keys.
  const seeds = Object.entries(kvEntries).map(([key, data]) => ({ key: fastlyKey(key), data }));
  config.kvStores[KV_STORE] = [...(config.kvStores[KV_STORE] ?? []), ...seeds];
  const viceroy = await findExecutable("viceroy");
  if (viceroy) return startViceroy({ executable: viceroy, wasmPath, config, port });
  const host = await startFastlyHost({ wasmPath, config, port });
  return { url: host.url, close: () => host.close() };
}

/** fastly.toml's `[local_server]` with this run's settings over it. */
export function localServerConfig(env: RawSettings): LocalServerConfig {
  // A secret this run leaves unset (AUTH_SECRET when an identity provider signs) is an empty entry.
  const unsetSecrets = Object.fromEntries(SECRET_KEYS.map((key) => [key, env[key] ?? ""]));
  return applyOverrides(readLocalServer(MANIFEST_PATH, { ...env, ...unsetSecrets }), runOverrides(env));
}

/** This run's settings over the manifest's: stores get the values, the backend the endpoint. */
export function runOverrides(env: RawSettings): LocalServerOverrides {
  const pick = (keys: readonly string[]) =>
    Object.fromEntries(keys.flatMap((key) => (env[key] === undefined ? [] : [[key, env[key]!]])));
  const endpoint = env.NEON_FETCH_ENDPOINT;
  const jwksUrl = env.AUTH_JWKS_URL;
  const otelUrl = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return {
    backends: {
      ...(endpoint ? { [NEON_BACKEND]: { url: new URL(endpoint).origin } } : {}),
      ...(jwksUrl ? { [JWKS_BACKEND]: { url: new URL(jwksUrl).origin } } : {}),
      ...(otelUrl ? { [OTEL_BACKEND]: { url: new URL(otelUrl).origin } } : {}),
    },
    configStores: { [CONFIG_STORE]: pick(CONFIG_KEYS) },
    secretStores: { [SECRET_STORE]: pick(SECRET_KEYS) },
  };
}

async function findExecutable(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}
