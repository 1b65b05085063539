import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFIG_STORE, JWKS_BACKEND, NEON_BACKEND, SECRET_STORE } from "../../edge/fastly/bindings.ts";
import { ensureFastlyWasm, ROOT } from "../build/fastly.ts";
import { localServerToml } from "../fastly-host/viceroy.ts";
import { TEST_AUTH_SECRET, TEST_AUTH_SETTINGS } from "../support/tokens.ts";
import { runOverrides, startFastlyRuntime } from "./fastly.ts";

const env = {
  ...TEST_AUTH_SETTINGS,
  DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:4545/sql",
};

describe("the Fastly launcher", () => {
  it("points the neon backend and the stores at this run", () => {
    expect(runOverrides({ ...env, LINK_CACHE_TTL_SECONDS: "90", PATH: "/bin" })).toEqual({
      backends: { [NEON_BACKEND]: { url: "http://127.0.0.1:4545" } },
      configStores: {
        [CONFIG_STORE]: {
          AUTH_SECRET_SCOPE: "local",
          LINK_CACHE_TTL_SECONDS: "90",
          NEON_FETCH_ENDPOINT: "http://127.0.0.1:4545/sql",
        },
      },
      secretStores: { [SECRET_STORE]: { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: env.DATABASE_URL } },
    });
  });

  it("points the jwks backend at the host of AUTH_JWKS_URL", () => {
    const overrides = runOverrides({ ...env, AUTH_JWKS_URL: "http://127.0.0.1:4646/.well-known/jwks.json" });
    expect(overrides.backends).toEqual({
      [NEON_BACKEND]: { url: "http://127.0.0.1:4545" },
      [JWKS_BACKEND]: { url: "http://127.0.0.1:4646" },
    });
    expect(overrides.configStores?.[CONFIG_STORE]).toMatchObject({
      AUTH_JWKS_URL: "http://127.0.0.1:4646/.well-known/jwks.json",
    });
  });

  it("writes Viceroy a manifest without secret values: they go through its environment", () => {
    const { toml, secretEnv } = localServerToml({
      backends: { neon: { url: "http://127.0.0.1:4545" } },
      kvStores: { edge_cache: [{ key: "k", data: "v" }] },
      configStores: { settings: { LINK_CACHE_TTL_SECONDS: "300" } },
      secretStores: { secrets: { AUTH_SECRET: "very secret" } },
    });
    expect(toml).not.toContain("very secret");
    const manifest = parse(toml) as { local_server: Record<string, Record<string, unknown>> };
    expect(manifest.local_server.backends).toEqual({ neon: { url: "http://127.0.0.1:4545" } });
    expect(manifest.local_server.kv_stores).toEqual({ edge_cache: [{ key: "k", data: "v" }] });
    expect(manifest.local_server.config_stores).toEqual({
      settings: { format: "inline-toml", contents: { LINK_CACHE_TTL_SECONDS: "300" } },
    });
    const [secret] = (manifest.local_server.secret_stores as { secrets: { key: string; env: string }[] }).secrets;
    expect(secret!.key).toBe("AUTH_SECRET");
    expect(secretEnv[secret!.env]).toBe("very secret");
  });

  describe("with viceroy on PATH", () => {
    const path = process.env.PATH;

    beforeAll(async () => {
      await ensureFastlyWasm();
      // A `viceroy` that takes Viceroy's arguments and serves with the test host.
      const dir = await mkdtemp(join(tmpdir(), "viceroy-bin-"));
      const standIn = join(ROOT, "dev", "fastly-host", "viceroy-stand-in.ts");
      await writeFile(
        join(dir, "viceroy"),
        `#!/bin/sh\nexec "${join(ROOT, "node_modules", ".bin", "tsx")}" "${standIn}" "$@"\n`,
      );
      await chmod(join(dir, "viceroy"), 0o755);
      process.env.PATH = `${dir}${delimiter}${path}`;
    }, 300_000);
    afterAll(() => {
      process.env.PATH = path;
    });

    it("serves the wasm through it, on the port asked for or a free one", async () => {
      const runtime = await startFastlyRuntime(env, { port: 0 });
      try {
        expect(runtime.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(await (await fetch(`${runtime.url}/healthz`)).json()).toEqual({ status: "ok", runtime: "fastly" });
      } finally {
        await runtime.close();
      }
      await expect(fetch(`${runtime.url}/healthz`)).rejects.toThrow();
    }, 120_000);
  });
});
