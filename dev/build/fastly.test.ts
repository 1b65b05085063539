import { stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ensureFastlyWasm, minifiedInput } from "./fastly.ts";

/** Fastly's published limit on a Compute package (the wasm and what is packed with it). */
const COMPUTE_PACKAGE_LIMIT_BYTES = 100 * 1024 * 1024;

// The built service within the platform's package limit. That it serves the document core
// generates is a conformance case (test/conformance/cases/openapi.ts), on Viceroy as everywhere.
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
