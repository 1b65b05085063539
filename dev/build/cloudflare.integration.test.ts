import { describe, expect, it } from "vitest";
import { workerCompatibility } from "../launchers/cloudflare.ts";
import { bundleWorker, UNUSED_SCHEMA_LIBRARIES } from "./cloudflare.ts";

describe("cloudflare worker bundle", () => {
  it("is one ES module exporting the fetch handler, with no import left to resolve", async () => {
    const bundle = await bundleWorker();
    console.log(`worker bundle: ${bundle.bytes} bytes raw, ${bundle.gzipBytes} bytes gzipped`);
    expect(bundle.code).toMatch(/export\s*\{[^}]*\bas default\b[^}]*\}/);
    // No nodejs_compat in wrangler.toml, so nothing may reach for Node built-ins or packages; only
    // the converters of schema libraries the service never uses are left as imports, never run.
    const unused = new RegExp(
      `\\bimport\\(\\s*"(${UNUSED_SCHEMA_LIBRARIES.join("|").replaceAll("*", '[^"]+')})"\\)`,
      "g",
    );
    const code = bundle.code.replace(unused, "");
    expect(code).not.toMatch(/\bimport\s*[\w{},*\s]*from\s*["']|\bimport\s*\(\s*["']|\brequire\s*\(\s*["']/);
    expect(bundle.code).not.toMatch(/["']node:/);
    expect(bundle.gzipBytes).toBeLessThan(bundle.bytes);
    // The API reference (/docs) is the Node server's, never deployed in a worker.
    expect(bundle.code).not.toMatch(/scalar/i);
  });

  it("with its source map for a profile, is the same code, its sources named from dist/cloudflare/", async () => {
    const [deployed, mapped] = await Promise.all([bundleWorker(), bundleWorker({ sourceMap: true })]);
    expect(deployed.map).toBeUndefined();
    expect(mapped.code).toBe(deployed.code);
    const { sources } = JSON.parse(mapped.map!) as { sources: string[] };
    expect(sources).toContain("../../edge/cloudflare/index.ts");
  });

  it("is deployed without nodejs_compat, on the compatibility date it is tested with", async () => {
    const { date, flags } = await workerCompatibility();
    expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(flags).not.toContain("nodejs_compat");
  });
});
