import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RawSettings } from "../../core/settings/settings.ts";
import { TEST_AUTH_SETTINGS } from "../support/tokens.ts";
import { launchRuntime } from "./index.ts";

// No database behind it: /healthz needs none.
const SETTINGS = {
  ...TEST_AUTH_SETTINGS,
  DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
};

const launchRelease = (env: RawSettings) => launchRuntime("node", env, { port: 0, log: "file", release: true });

describe("node release launcher", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("runs the built release in a process of its own, its log in a file deleted at close", async () => {
    const runtime = await launchRelease(SETTINGS);
    try {
      expect(await (await fetch(`${runtime.url}/healthz`)).json()).toMatchObject({ status: "ok", runtime: "node" });
      const logFile = (runtime as { logFile?: string }).logFile as string;
      await expect.poll(() => readFileSync(logFile, "utf8"), { timeout: 5_000 }).toMatch(/"route":"\/healthz"/);
      const [first] = readFileSync(logFile, "utf8").split("\n");
      expect(JSON.parse(first as string)).toMatchObject({ event: "listening", url: runtime.url });
    } finally {
      await runtime.close();
    }
    expect(existsSync((runtime as { logFile?: string }).logFile as string)).toBe(false);
  });

  it("takes its settings from the env given only, never from this process's", async () => {
    // Either would change the release if it leaked in: MAX_CONNECTIONS=none stops it at start.
    vi.stubEnv("MAX_CONNECTIONS", "none");
    vi.stubEnv("API_DOCS", "off");
    const runtime = await launchRelease({ ...SETTINGS, API_DOCS: "on" });
    try {
      expect((await fetch(`${runtime.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${runtime.url}/docs`)).status).toBe(200);
    } finally {
      await runtime.close();
    }
  });

  it("refuses planted KV entries: the release's KV is its own process's memory", async () => {
    await expect(
      launchRuntime("node", SETTINGS, { port: 0, release: true, kvEntries: { key: "value" } }),
    ).rejects.toThrow(/takes no planted KV entries/);
  });
});
