import { stat } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFastlyRuntime } from "../launchers/fastly.ts";
import { appWithoutDatabase } from "../support/app-without-database.ts";
import { TEST_AUTH_SECRET } from "../support/tokens.ts";
import { describeWithViceroy } from "../support/viceroy.ts";
import { ensureFastlyWasm, minifiedInput } from "./fastly.ts";

/** Fastly's published limit on a Compute package (the wasm and what is packed with it). */
const COMPUTE_PACKAGE_LIMIT_BYTES = 100 * 1024 * 1024;

// The built service: within the platform's package limit, and serving the document it generates.
describe("the Fastly build", () => {
  it("fits Fastly's 100 MB Compute package limit", async () => {
    const bytes = (await stat(await ensureFastlyWasm())).size;
    console.log(`bin/main.wasm: ${(bytes / 1e6).toFixed(2)} MB (Fastly's package limit: 100 MiB)`);
    expect(bytes).toBeLessThanOrEqual(COMPUTE_PACKAGE_LIMIT_BYTES);
  }, 300_000);

  it("bundles no code compiled from strings: no `new Function`, no `eval`", async () => {
    const { text } = await minifiedInput();
    expect(text).not.toMatch(/\bnew Function\b|\beval\s*\(/);
  });
});

describeWithViceroy("the Fastly build on Viceroy", () => {
  let service: Awaited<ReturnType<typeof startFastlyRuntime>> | undefined;
  beforeAll(async () => {
    const env = {
      AUTH_SECRET: TEST_AUTH_SECRET,
      AUTH_SECRET_SCOPE: "local",
      DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
    };
    service = await startFastlyRuntime(env, { port: 0 });
  }, 300_000);
  afterAll(() => service?.close());

  it("serves the same OpenAPI document as the app on any other runtime", async () => {
    const response = await fetch(`${service!.url}/openapi.json`);
    expect(response.status).toBe(200);
    const generated = await appWithoutDatabase("fastly").request("/openapi.json");
    expect(await response.json()).toEqual(await generated.json());
  });
});
