import { stat } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FastlyHost, startFastlyHost } from "../fastly-host/host.ts";
import { localServerConfig } from "../launchers/fastly.ts";
import { openApiJson } from "./embedded-openapi.ts";
import { ensureFastlyWasm } from "./fastly.ts";

// The built service: within its size budget, and serving the OpenAPI document made at build time.
describe("the Fastly build", () => {
  let wasmPath: string;
  let host: FastlyHost;
  beforeAll(async () => {
    wasmPath = await ensureFastlyWasm();
    const env = {
      AUTH_SECRET: "a-development-secret-of-32-bytes-or-more",
      DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
    };
    host = await startFastlyHost({ wasmPath, config: localServerConfig(env), concurrency: 1, log: () => {} });
  }, 300_000);
  afterAll(() => host?.close());

  // Neon's driver (one 150 KB module, its WebSocket client included) brought the service to
  // 16.4 MB; csv-parse compiled on first use (compiled-on-first-use.ts) brought it back under.
  it("is at most 16 MB", async () => {
    expect((await stat(wasmPath)).size).toBeLessThanOrEqual(16_000_000);
  });

  it("serves the OpenAPI document the generator makes from the app's route table", async () => {
    const response = await fetch(`${host.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(await openApiJson()));
  });
});
