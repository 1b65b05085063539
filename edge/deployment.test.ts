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
  it("serves the runtime's name and runs its background at the settings' interval", async () => {
    const { app, background } = createDeployment({ runtime: "node", stores: stores() });
    expect(await healthz(app.fetch)).toEqual({ status: "ok", runtime: "node" });
    expect(background.intervalMs).toBe(parseSettings(raw).linkSyncIntervalSeconds * 1000);
  });

  it("throws a SettingsError when the stores lack a setting", () => {
    const { DATABASE_URL: _, ...withoutDatabase } = raw;
    expect(() => createDeployment({ runtime: "node", stores: stores(withoutDatabase) })).toThrow(SettingsError);
  });
});
