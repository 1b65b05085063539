import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/browser/esm/sync";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { compiledOnFirstUse } from "./compiled-on-first-use.ts";

const SPECIFIER = "csv-parse/browser/esm/sync";
const CSV = 'id,name\r\n"a,1","say ""hi"""\r\n';

/** An entry calling the package through the plugin, bundled as the Fastly build bundles. */
async function bundled(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `import { parse } from ${JSON.stringify(SPECIFIER)}; export const rows = (text) => parse(text);`,
      resolveDir: fileURLToPath(new URL(".", import.meta.url)),
    },
    plugins: [compiledOnFirstUse([{ specifier: SPECIFIER, functions: ["parse"] }])],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

describe("a package compiled on first use", () => {
  it("is in the bundle only as text, and compiled when first called", async () => {
    const code = await bundled();
    expect(code).toContain("new Function(");
    // Tens of KiB of csv-parse, and outside its string only the few lines that compile it.
    const outsideStrings = code.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
    expect(code.length).toBeGreaterThan(30_000);
    expect(outsideStrings.length).toBeLessThan(1_000);
  });

  it("answers as the package does", async () => {
    const module = await import(`data:text/javascript;base64,${Buffer.from(await bundled()).toString("base64")}`);
    expect(module.rows(CSV)).toEqual(parse(CSV));
    expect(() => module.rows('"unclosed')).toThrow(/Quote Not Closed/i);
  });
});
