import { describe, expect, it } from "vitest";
import type { Logger } from "../core/log.ts";
import { parseSettings, SettingsError } from "../core/settings/settings.ts";
import { createInstance, type RuntimeStores } from "./instance.ts";
import { createMemoryKv } from "./kv/memory.ts";

const raw = {
  AUTH_SECRET: "a".repeat(32),
  AUTH_SECRET_SCOPE: "local",
  DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
};
const stores = (env: Record<string, string> = raw): RuntimeStores => ({
  settings: parseSettings(env),
  kv: createMemoryKv(),
});
const healthz = async (fetch: (request: Request) => Response | Promise<Response>) =>
  (await fetch(new Request("http://edge.test/healthz"))).json();

describe("createInstance", () => {
  it("serves the runtime's name and runs its background at the settings' interval", async () => {
    const { app, background } = createInstance({ runtime: "node", stores: stores() });
    expect(await healthz(app.fetch)).toEqual({ status: "ok", runtime: "node" });
    expect(background.intervalMs).toBe(parseSettings(raw).linkSyncIntervalSeconds * 1000);
  });

  it("throws a SettingsError when the stores lack a setting", () => {
    const { DATABASE_URL: _, ...withoutDatabase } = raw;
    expect(() => createInstance({ runtime: "node", stores: stores(withoutDatabase) })).toThrow(SettingsError);
  });

  it("refuses AUTH_SECRET without AUTH_SECRET_SCOPE, naming the scope, and logs nothing", () => {
    const { AUTH_SECRET_SCOPE: _, ...unscoped } = raw;
    const logged: unknown[] = [];
    const logger: Logger = { log: (...line) => void logged.push(line) };
    expect(() => createInstance({ runtime: "node", stores: stores(unscoped), logger })).toThrow(
      /^AUTH_SECRET_SCOPE is not set: /,
    );
    expect(logged).toEqual([]);
  });

  it("takes a deployed AUTH_SECRET with one warning line at start; the local scope logs none", () => {
    const logged: unknown[][] = [];
    const logger: Logger = { log: (...line) => void logged.push(line) };
    createInstance({ runtime: "node", stores: stores(), logger });
    expect(logged).toEqual([]);
    const deployed = {
      ...raw,
      // Made now: one written here would be published.
      AUTH_SECRET: `${crypto.randomUUID()}${crypto.randomUUID()}`,
      AUTH_SECRET_SCOPE: "deployment",
      AUTH_ISSUER: "https://api.example/",
      AUTH_AUDIENCE: "edge-api",
    };
    createInstance({ runtime: "node", stores: stores(deployed), logger });
    expect(logged).toEqual([
      ["warn", "shared_secret_signs", expect.objectContaining({ setting: "AUTH_SECRET_SCOPE" })],
    ]);
    expect(JSON.stringify(logged)).not.toContain(deployed.AUTH_SECRET);
  });
});
