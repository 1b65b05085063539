import { stat } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FastlyHost, startFastlyHost } from "../fastly-host/host.ts";
import { localServerConfig } from "../launchers/fastly.ts";
import { appWithoutDatabase } from "../support/app-without-database.ts";
import { ensureFastlyWasm, minifiedInput } from "./fastly.ts";

/** Fastly's published limit on a Compute package (the wasm and what is packed with it). */
const COMPUTE_PACKAGE_LIMIT_BYTES = 100 * 1024 * 1024;

// The built service: within the platform's package limit, and serving the document it generates.
describe("the Fastly build", () => {
  let wasmPath: string;
  let host: FastlyHost;
  beforeAll(async () => {
    wasmPath = await ensureFastlyWasm();
    const env = {
      AUTH_SECRET: "a-development-secret-of-32-bytes-or-more",
      AUTH_SECRET_SCOPE: "local",
      DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
    };
    host = await startFastlyHost({ wasmPath, config: localServerConfig(env), concurrency: 1, log: () => {} });
  }, 300_000);
  afterAll(() => host?.close());

  it("fits Fastly's 100 MB Compute package limit", async () => {
    const bytes = (await stat(wasmPath)).size;
    console.log(`bin/main.wasm: ${(bytes / 1e6).toFixed(2)} MB (Fastly's package limit: 100 MiB)`);
    expect(bytes).toBeLessThanOrEqual(COMPUTE_PACKAGE_LIMIT_BYTES);
  });

  it("bundles no code compiled from strings: no `new Function`, no `eval`", async () => {
    const { text } = await minifiedInput();
    expect(text).not.toMatch(/\bnew Function\b|\beval\s*\(/);
  });

  it("serves the same OpenAPI document as the app on any other runtime", async () => {
    const response = await fetch(`${host.url}/openapi.json`);
    expect(response.status).toBe(200);
    const generated = await appWithoutDatabase("fastly").request("/openapi.json");
    expect(await response.json()).toEqual(await generated.json());
  });
});
