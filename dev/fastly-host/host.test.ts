import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFIG_STORE, KV_STORE, NEON_BACKEND, SECRET_STORE } from "../../edge/fastly/bindings.ts";
import {
  type IdentityProvider,
  PROVIDER_ALGORITHMS,
  PROVIDER_SETTINGS,
  startIdentityProvider,
} from "../../test/conformance/identity-provider.ts";
import { ensureFastlyWasm } from "../build/fastly.ts";
import { localServerConfig } from "../launchers/fastly.ts";
import { type LocalStack, startLocalStack } from "../local-stack/stack.ts";
import { freePort } from "../support/free-port.ts";
import { bearer, TEST_AUTH_SETTINGS } from "../support/tokens.ts";
import { type FastlyHost, startFastlyHost } from "./host.ts";
import type { LocalServerConfig } from "./manifest.ts";

// The service as compiled for Compute (bin/main.wasm), run by the test host.

let wasmPath: string;
const hosts: FastlyHost[] = [];

beforeAll(async () => {
  wasmPath = await ensureFastlyWasm();
}, 300_000);
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
});

async function start(config: LocalServerConfig, concurrency = 2) {
  const logs: string[] = [];
  const host = await startFastlyHost({
    wasmPath,
    config,
    concurrency,
    log: (stream, text) => logs.push(`${stream}: ${text}`),
  });
  hosts.push(host);
  return { host, logs };
}

describe("the Fastly test host running the service", () => {
  it("serves /healthz from the wasm; more requests than instances wait their turn", async () => {
    const { host, logs } = await start(
      localServerConfig({ ...TEST_AUTH_SETTINGS, DATABASE_URL: "postgres://u:p@127.0.0.1:9/db" }),
      2,
    );
    const responses = await Promise.all(Array.from({ length: 5 }, () => fetch(`${host.url}/healthz`)));
    for (const response of responses) expect(await response.json()).toEqual({ status: "ok", runtime: "fastly" });
    expect(logs.filter((line) => line.includes('"event":"request"'))).toHaveLength(5);
  });

  it("a database backend that cannot be reached: /readyz 503, an API call 503 database_unavailable", async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}/sql`;
    const { host } = await start(
      localServerConfig({
        ...TEST_AUTH_SETTINGS,
        DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
        NEON_FETCH_ENDPOINT: endpoint,
      }),
    );
    expect((await fetch(`${host.url}/readyz`)).status).toBe(503);
    const response = await fetch(`${host.url}/v1/me/links`, { headers: await bearer() });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(await response.json()).toMatchObject({ code: "database_unavailable" });
  });

  it("a secret missing from the secret store: 500 misconfigured, and the log says which", async () => {
    const config = localServerConfig({ ...TEST_AUTH_SETTINGS, DATABASE_URL: "x" });
    delete config.secretStores[SECRET_STORE]!.DATABASE_URL;
    const { host, logs } = await start(config);
    const response = await fetch(`${host.url}/healthz`);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ code: "misconfigured", setting: "DATABASE_URL" });
    expect(logs.join("")).toMatch(/misconfigured.*DATABASE_URL is not set/);
  });

  describe("with a database", () => {
    let stack: LocalStack;
    let host: FastlyHost;

    beforeAll(async () => {
      stack = await startLocalStack();
      const env = {
        ...TEST_AUTH_SETTINGS,
        ...stack.settings,
      };
      const config = localServerConfig(env);
      expect(config.backends[NEON_BACKEND]!.url).toBe(new URL(stack.neonFetchEndpoint).origin);
      expect(config.configStores[CONFIG_STORE]!.NEON_FETCH_ENDPOINT).toBe(stack.neonFetchEndpoint);
      ({ host } = await start(config));
    }, 120_000);
    afterAll(async () => {
      await stack?.close();
    });

    it("the service caches links in the host's KV store, and reads them from there", async () => {
      const headers = await bearer({ sub: "kv-user" });
      const path = `${host.url}/v1/links/github/kv-42`;
      expect((await fetch(path, { method: "PUT", headers })).status).toBe(201);
      const listing = JSON.parse(host.kv.list(KV_STORE, { prefix: "links/v2/acme/" }) as string) as { data: string[] };
      expect(listing.data).toHaveLength(1);
      expect((await fetch(path, { headers })).headers.get("x-link-source")).toBe("kv");
      host.kv.delete(KV_STORE, listing.data[0]!);
      expect((await fetch(path, { headers })).headers.get("x-link-source")).toBe("db");
    });

    it("an instance serves request after request: each new token checked, each database call bounded", async () => {
      const before = host.served.reused;
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`${host.url}/v1/me/links`, { headers: await bearer({ sub: `reuse-${i}` }) });
        expect(response.status).toBe(200);
      }
      // Requests in turn go to the instance that served the last one, unless it ended.
      expect(host.served.reused - before).toBe(4);
    });
  });

  describe.each([
    ["in AUTH_JWKS", (provider: IdentityProvider) => ({ AUTH_JWKS: JSON.stringify({ keys: provider.publicJwks }) })],
    ["fetched from AUTH_JWKS_URL", (provider: IdentityProvider) => ({ AUTH_JWKS_URL: provider.jwksUrl })],
  ])("signed in with the provider's keys %s", (_, keys) => {
    let stack: LocalStack;
    let provider: IdentityProvider;
    let host: FastlyHost;
    beforeAll(async () => {
      [stack, provider] = await Promise.all([startLocalStack(), startIdentityProvider()]);
      const env = {
        ...keys(provider),
        ...stack.settings,
        ...PROVIDER_SETTINGS,
      };
      ({ host } = await start(localServerConfig(env), 1));
    }, 120_000);
    afterAll(async () => {
      await Promise.all([stack?.close(), provider?.close()]);
    });

    // The keys imported from the JWKS are kept by the instance: they must still verify once it
    // has served other requests (and been collected between them). Fetching the JWKS must not
    // end the instance either (a timer left behind would).
    it("a reused instance keeps verifying new RS256, ES256 and EdDSA tokens", async () => {
      const before = host.served.reused;
      for (let i = 0; i < 3; i++) {
        for (const alg of PROVIDER_ALGORITHMS) {
          const authorization = await provider.bearer({ alg, sub: `jwks-${alg}-${i}` });
          const response = await fetch(`${host.url}/v1/me/links`, { headers: { authorization } });
          expect(response.status, `${alg} #${i}`).toBe(200);
        }
      }
      expect(host.served.reused - before).toBeGreaterThanOrEqual(8);
    });
  });
});
