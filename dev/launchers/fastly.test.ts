import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CONFIG_STORE,
  JWKS_BACKEND,
  KV_STORE,
  NEON_BACKEND,
  OTEL_BACKEND,
  SECRET_STORE,
} from "../../edge/fastly/bindings.ts";
import { TEST_AUTH_SETTINGS } from "../support/tokens.ts";
import { describeWithViceroy } from "../support/viceroy.ts";
import { STARTUP_TIMEOUT_MS } from "./child-server.ts";
import { FASTLY_MANIFEST, startFastlyRuntime } from "./fastly.ts";
import { runManifest } from "./fastly-manifest.ts";
import { VICEROY_INSTALL } from "./viceroy.ts";

const env = {
  ...TEST_AUTH_SETTINGS,
  DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:4545/sql",
};

interface LocalServer {
  backends: Record<string, { url: string }>;
  kv_stores: Record<string, { key: string; data: string }[]>;
  config_stores: Record<string, { format: string; contents: Record<string, string> }>;
  secret_stores: Record<string, { key: string; env: string }[]>;
}
const localServer = (toml: string) => (parse(toml) as unknown as { local_server: LocalServer }).local_server;

describe("the run's fastly.toml", () => {
  it("points the neon backend and the config store at this run", () => {
    const { toml } = runManifest(FASTLY_MANIFEST, { ...env, LINK_CACHE_TTL_SECONDS: "90", PATH: "/bin" });
    const local = localServer(toml);
    expect(local.backends[NEON_BACKEND]).toEqual({ url: "http://127.0.0.1:4545" });
    expect(local.config_stores[CONFIG_STORE]!.format).toBe("inline-toml");
    expect(local.config_stores[CONFIG_STORE]!.contents).toMatchObject({
      LINK_CACHE_TTL_SECONDS: "90",
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:4545/sql",
    });
    expect(local.config_stores[CONFIG_STORE]!.contents).not.toHaveProperty("PATH");
  });

  it("points the jwks backend at the host of AUTH_JWKS_URL", () => {
    const jwksUrl = "http://127.0.0.1:4646/.well-known/jwks.json";
    const local = localServer(runManifest(FASTLY_MANIFEST, { ...env, AUTH_JWKS_URL: jwksUrl }).toml);
    expect(local.backends[JWKS_BACKEND]).toEqual({ url: "http://127.0.0.1:4646" });
    expect(local.config_stores[CONFIG_STORE]!.contents.AUTH_JWKS_URL).toBe(jwksUrl);
  });

  it("points the otel backend at the origin of OTEL_EXPORTER_OTLP_ENDPOINT", () => {
    const endpoint = "http://127.0.0.1:4318/collector";
    const local = localServer(runManifest(FASTLY_MANIFEST, { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).toml);
    expect(local.backends[OTEL_BACKEND]).toEqual({ url: "http://127.0.0.1:4318" });
    expect(local.config_stores[CONFIG_STORE]!.contents.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(endpoint);
  });

  it("leaves the manifest's backend for a setting that is no http(s) URL: the service refuses it by name", () => {
    for (const bad of ["ftp://127.0.0.1:9/sql", "not a url"]) {
      const local = localServer(runManifest(FASTLY_MANIFEST, { ...env, NEON_FETCH_ENDPOINT: bad }).toml);
      expect(local.backends[NEON_BACKEND]).toEqual({ url: "http://127.0.0.1:4444" });
      expect(local.config_stores[CONFIG_STORE]!.contents.NEON_FETCH_ENDPOINT).toBe(bad);
    }
  });

  it("keeps the secrets out of the file: Viceroy's environment carries them, an unset one empty", () => {
    const headers = "authorization=Bearer%20collector-key";
    const run = { DATABASE_URL: env.DATABASE_URL, OTEL_EXPORTER_OTLP_HEADERS: headers };
    const { toml, secretEnv } = runManifest(FASTLY_MANIFEST, run);
    expect(toml).not.toContain(env.DATABASE_URL);
    expect(toml).not.toContain(headers);
    const secrets = Object.fromEntries(
      localServer(toml).secret_stores[SECRET_STORE]!.map(({ key, env: name }) => [key, secretEnv[name]]),
    );
    expect(secrets).toEqual({
      AUTH_SECRET: "",
      AUTH_JWKS_KV_SECRET: "",
      DATABASE_URL: env.DATABASE_URL,
      OTEL_EXPORTER_OTLP_HEADERS: headers,
    });
  });

  it("seeds the KV store with the planted entries, keyed as the service's adapter keys them", () => {
    const local = localServer(runManifest(FASTLY_MANIFEST, env, { "jwks/a#b": "planted" }).toml);
    expect(local.kv_stores[KV_STORE]).toEqual([{ key: "jwks/a%23b", data: "planted" }]);
  });
});

describe("without viceroy", () => {
  const saved = { PATH: process.env.PATH, HOME: process.env.HOME };
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "no-viceroy-"));
  });
  afterEach(() => Object.assign(process.env, saved));
  afterAll(() => rm(home, { recursive: true, force: true }));

  it("nothing starts, and one line says how to install it", async () => {
    // A PATH and a home folder where no viceroy is; a file named so, not executable, does not count.
    await writeFile(join(home, "viceroy"), "");
    Object.assign(process.env, { PATH: home, HOME: home });
    const started = startFastlyRuntime(env, { port: 0 });
    await expect(started).rejects.toThrow(VICEROY_INSTALL);
    await expect(started).rejects.toThrow(/^[^\n]+$/);
  });
});

describeWithViceroy("the Fastly launcher on Viceroy", () => {
  it(
    "serves the wasm on the port asked for or a free one, and stops it",
    async () => {
      const runtime = await startFastlyRuntime(env, { port: 0 });
      try {
        expect(runtime.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(runtime.url).not.toMatch(/:0$/);
        expect(await (await fetch(`${runtime.url}/healthz`)).json()).toEqual({ status: "ok", runtime: "fastly" });
      } finally {
        await runtime.close();
      }
      await expect(fetch(`${runtime.url}/healthz`)).rejects.toThrow();
    },
    STARTUP_TIMEOUT_MS + 30_000,
  );
});
