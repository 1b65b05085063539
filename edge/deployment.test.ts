import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "../core/settings/settings.ts";
import { createDeployment, type RuntimeStores } from "./deployment.ts";
import { createMemoryKv } from "./kv/memory.ts";

const raw = {
  AUTH_SECRET: "a".repeat(32),
  DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
};
const stores = (env: Record<string, string> = raw): RuntimeStores => ({
  settings: parseSettings(env),
  kv: createMemoryKv(),
});
const healthz = async (fetch: (request: Request) => Response | Promise<Response>) =>
  (await fetch(new Request("http://edge.test/healthz"))).json();

describe("createDeployment", () => {
  it("serves the runtime's name from stores read at once", async () => {
    const { app, background, ready } = createDeployment({ runtime: "node", stores: stores() });
    await ready();
    expect(await healthz(app.fetch)).toEqual({ status: "ok", runtime: "node" });
    expect(background.intervalMs).toBe(parseSettings(raw).linkSyncIntervalSeconds * 1000);
  });

  it("throws a SettingsError at once when stores given at once lack a setting", () => {
    const { DATABASE_URL: _, ...withoutDatabase } = raw;
    expect(() => createDeployment({ runtime: "node", stores: stores(withoutDatabase) })).toThrow(SettingsError);
  });

  it("builds the app before stores read later, and binds them once ready", async () => {
    let reads = 0;
    const { app, background, ready } = createDeployment({
      runtime: "fastly",
      stores: async () => {
        reads++;
        return stores();
      },
    });
    expect(app.routes.length).toBeGreaterThan(0);
    expect(() => background.intervalMs).toThrow(/not read yet/);
    await ready();
    await ready();
    expect(reads).toBe(1);
    expect(await healthz(app.fetch)).toEqual({ status: "ok", runtime: "fastly" });
    expect(background.intervalMs).toBe(parseSettings(raw).linkSyncIntervalSeconds * 1000);
  });

  it("reads stores read later again after a failed read", async () => {
    const { DATABASE_URL: _, ...withoutDatabase } = raw;
    const envs = [withoutDatabase, raw];
    const { ready } = createDeployment({ runtime: "fastly", stores: async () => stores(envs.shift()) });
    await expect(ready()).rejects.toThrow(SettingsError);
    await expect(ready()).resolves.toBeUndefined();
  });
});
